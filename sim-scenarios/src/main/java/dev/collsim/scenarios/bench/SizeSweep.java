package dev.collsim.scenarios.bench;

import dev.collsim.core.input.InputException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The message sizes of an nccl-tests run: from {@code -b} to {@code -e}, multiplying by {@code -f}
 * when it is above 1, else adding {@code -i}. Sizes take nccl-tests' suffixes K, M, G (powers of
 * 1024) or none (bytes).
 */
public record SizeSweep(long minBytes, long maxBytes, long stepFactor, long stepBytes) {
    private static final Pattern SIZE = Pattern.compile("(\\d+)([KkMmGgTt]?)");

    public SizeSweep {
        if (maxBytes < minBytes) {
            throw new InputException("-e " + maxBytes + " is below -b " + minBytes + "; the largest size must be at least the smallest");
        }
        if (stepFactor < 1) {
            throw new InputException("-f " + stepFactor + ": the step factor must be 1 or more");
        }
        if (stepFactor > 1 && minBytes == 0 && maxBytes > 0) {
            throw new InputException("-b 0 with -f " + stepFactor + " never grows: start at 1 byte or more, or step with -f 1 -i BYTES");
        }
        if (stepFactor == 1 && stepBytes < 1 && maxBytes > minBytes) {
            throw new InputException("-i " + stepBytes + ": the step must be 1 byte or more when -f is 1");
        }
    }

    /** Parses an nccl-tests size ({@code 8}, {@code 512K}, {@code 1M}, {@code 8G}); {@code flag} names it in errors. */
    public static long parseSize(String flag, String text) {
        Matcher m = SIZE.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new InputException(flag + " '" + text + "': expected a whole number of bytes, optionally with K, M or G (x1024)");
        }
        int shift = switch (m.group(2).toUpperCase(java.util.Locale.ROOT)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        try {
            long base = Long.parseLong(m.group(1));
            if (base > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return base << shift;
        } catch (NumberFormatException e) {
            throw new InputException(flag + " '" + text + "': too large");
        }
    }

    public List<Long> sizes() {
        List<Long> out = new ArrayList<>();
        long s = minBytes;
        while (s <= maxBytes) {
            out.add(s);
            long next = stepFactor > 1 ? s * stepFactor : s + stepBytes;
            if (next <= s) {
                break;
            }
            s = next;
        }
        return out;
    }
}
