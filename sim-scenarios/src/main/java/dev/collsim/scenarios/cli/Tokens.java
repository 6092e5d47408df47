package dev.collsim.scenarios.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A token count as people write it: {@code 4096}, {@code 4k} or {@code 4K} (x1024, as "a 4K
 * context" means 4,096 tokens), {@code 1m} (x1048576).
 */
final class Tokens implements ITypeConverter<Integer> {
    /**
     * 16M tokens: above the longest context any model serves (10M), and small enough that a prompt
     * and its output summed, times a batch, stay whole numbers.
     */
    static final int MAX = 1 << 24;

    @Override
    public Integer convert(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        int shift = t.endsWith("k") ? 10 : t.endsWith("m") ? 20 : 0;
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        if (!digits.matches("-?\\d{1,10}")) {
            throw new TypeConversionException("'" + text + "' is not a token count; expected a whole number, or one with k (x1024), e.g. 4k");
        }
        long n = Long.parseLong(digits) << shift;
        if (Math.abs(n) > MAX) {
            throw new TypeConversionException("'" + text + "': more tokens than any model's context; expected at most 16m (" + MAX + ")");
        }
        return (int) n;
    }
}
