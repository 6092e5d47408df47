package dev.collsim.scenarios.bench;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.DataSize;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The message sizes of an nccl-tests run: from {@code -b} to {@code -e}, multiplying by {@code -f}
 * when it is above 1, else adding {@code -i}. Sizes take nccl-tests' suffixes K, M, G (powers of
 * 1024), KiB, MiB, GiB, or none (bytes).
 */
public record SizeSweep(long minBytes, long maxBytes, long stepFactor, long stepBytes) {
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
        long count = count(minBytes, maxBytes, stepFactor, stepBytes);
        if (count > MAX_SIZES) {
            throw new InputException(String.format(Locale.ROOT, "%s means %,d sizes, more than the %,d a run can list: step with"
                    + " -f 2 (doubling), or a larger -i", describe(minBytes, maxBytes, stepFactor, stepBytes), count, MAX_SIZES));
        }
    }

    /** The most sizes one run lists. */
    public static final long MAX_SIZES = 100_000;

    /** How many sizes the sweep holds, counted without listing them. */
    public long count() {
        return count(minBytes, maxBytes, stepFactor, stepBytes);
    }

    private static long count(long min, long max, long factor, long step) {
        if (max == min) {
            return 1;
        }
        if (factor == 1) {
            return (max - min) / step + 1;
        }
        long n = 0;
        for (long s = min; s <= max && s > 0; s = s > Long.MAX_VALUE / factor ? -1 : s * factor) {
            n++;
        }
        return min == 0 ? 1 : n;
    }

    /** The sweep as nccl-tests' flags: {@code -b 8 -e 8G -f 2}, or {@code -b 8 -e 8G -f 1 -i 1M}. */
    public String describe() {
        return describe(minBytes, maxBytes, stepFactor, stepBytes);
    }

    private static String describe(long min, long max, long factor, long step) {
        return "-b " + format(min) + " -e " + format(max) + (factor > 1 ? " -f " + factor : " -f 1 -i " + format(step));
    }

    /** Bytes as nccl-tests writes them: 8, 512K, 1M, 8G where they divide evenly. */
    static String format(long bytes) {
        String[] suffix = {"", "K", "M", "G", "T"};
        int i = 0;
        while (i < 4 && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            i++;
        }
        return bytes + suffix[i];
    }

    /** Parses a size flag ({@code 8}, {@code 512K}, {@code 1M}, {@code 4MiB}, {@code 8G}); {@code flag} names it in errors. */
    public static long parseSize(String flag, String text) {
        try {
            return DataSize.parse(text).bytes();
        } catch (InputException e) {
            throw e.in(flag);
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
