package dev.collsim.core.input;

/**
 * The one error type for bad input anywhere in collsim: a flag, a file, a field.
 *
 * <p>Its message is a single line that names the input, where in it, and what was expected; the
 * command line prints it as it is, exits with code 2 and never shows a stack trace.
 */
public final class InputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InputException(String message) {
        super(message, null, false, false);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause, false, false);
    }

    /** Prefixes the message with the input it came from, e.g. a flag or a file name. */
    public InputException in(String where) {
        return new InputException(where + ": " + getMessage(), getCause());
    }
}
