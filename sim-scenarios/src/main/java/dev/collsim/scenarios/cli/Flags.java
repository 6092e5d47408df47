package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import java.util.function.Supplier;

/** Parsing of one flag's value, so that its error names the flag. */
final class Flags {
    private Flags() {}

    static <T> T parse(String flag, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (InputException e) {
            throw e.in(flag);
        }
    }
}
