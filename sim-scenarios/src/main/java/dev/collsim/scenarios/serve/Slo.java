package dev.collsim.scenarios.serve;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.TimeSpan;
import java.util.Locale;

/**
 * A latency target as planners write it: a bare time is the mean ({@code 2s}), {@code pN:TIME} the
 * N-th percentile ({@code p99:2s}, {@code p99.9:100ms}), as {@code vllm bench serve}'s
 * {@code p99_ttft_ms} reports it.
 *
 * @param percentile 0 for the mean, else above 0 and below 100
 * @param ms         the target, ms
 */
public record Slo(double percentile, double ms) {
    public Slo {
        if (!(percentile == 0 || percentile > 0 && percentile < 100)) {
            throw new InputException("p" + percentile + ": expected a percentile above 0 and below 100, e.g. p99");
        }
        if (!(ms > 0) || Double.isInfinite(ms)) {
            throw new InputException("expected a positive time, e.g. 2s or p99:2s");
        }
    }

    public static Slo mean(double ms) {
        return new Slo(0, ms);
    }

    /** {@code 2s}, {@code mean:2s} or {@code p99:2s}; the error names {@code flag}. */
    public static Slo parse(String flag, String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        double percentile = 0;
        if (colon >= 0) {
            String stat = t.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            if (stat.startsWith("p") && stat.length() > 1) {
                try {
                    percentile = Double.parseDouble(stat.substring(1));
                } catch (NumberFormatException e) {
                    percentile = Double.NaN;
                }
            } else if (!stat.equals("mean")) {
                percentile = Double.NaN;
            }
            if (!(percentile > 0 && percentile < 100) && !stat.equals("mean")) {
                throw new InputException(flag + " '" + text + "': expected TIME (the mean) or pN:TIME with N above 0 and below 100, e.g. p99:2s");
            }
            t = t.substring(colon + 1).trim();
        }
        double ms;
        try {
            ms = TimeSpan.parse(t).picos() / 1e9;
        } catch (InputException e) {
            throw e.in(flag);
        }
        if (!(ms > 0)) {
            throw new InputException(flag + " '" + text + "': expected a positive time, e.g. 2s or p99:2s");
        }
        return new Slo(percentile, ms);
    }

    public boolean isMean() {
        return percentile == 0;
    }

    /** {@code mean}, {@code p99}, {@code p99.9}: as the outputs' keys and headers say it. */
    public String stat() {
        if (isMean()) {
            return "mean";
        }
        return "p" + (percentile == Math.rint(percentile) ? String.valueOf((long) percentile) : String.valueOf(percentile));
    }
}
