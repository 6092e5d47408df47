package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import java.util.Locale;
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

    /** An on/off switch: on, off, 1, 0, true or false. */
    static boolean onOff(String flag, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "on", "1", "true" -> true;
            case "off", "0", "false" -> false;
            default -> throw new InputException(flag + " '" + value + "': expected on or off");
        };
    }

    /** {@code auto}, {@code on} or {@code off} (and their true/false spellings): null for auto. */
    static Boolean autoOnOff(String flag, String value) {
        if (value.equalsIgnoreCase("auto")) {
            return null;
        }
        if (!value.matches("(?i)on|off|true|false|1|0")) {
            throw new InputException(flag + " '" + value + "': expected auto, on or off");
        }
        return onOff(flag, value);
    }

    /** {@code --threads}: the cores when not given. */
    static int threads(Integer threads) {
        return Require.atLeastOne("--threads", threads == null ? Runtime.getRuntime().availableProcessors() : threads);
    }
}
