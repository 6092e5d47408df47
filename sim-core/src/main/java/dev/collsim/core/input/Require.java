package dev.collsim.core.input;

/** Checks of user input shared by every command, each failing with the one-line {@link InputException}. */
public final class Require {
    private Require() {}

    /** A count that must be 1 or more: {@code --nodes 0: expected 1 or more}. */
    public static int atLeastOne(String flag, int value) {
        if (value < 1) {
            throw new InputException(flag + " " + value + ": expected 1 or more");
        }
        return value;
    }
}
