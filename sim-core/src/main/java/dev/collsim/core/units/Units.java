package dev.collsim.core.units;

import dev.collsim.core.input.InputException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsing and formatting of quantities with units. A bare number is an error that says which
 * suffixes are accepted (the unit is part of the value), except for a data size, where it counts
 * bytes as every size flag of nccl-tests does.
 */
final class Units {
    private static final Pattern QUANTITY =
            Pattern.compile("\\s*([+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)\\s*([A-Za-zµ/]*)\\s*");

    private static final Map<String, Long> SIZE_UNITS = Map.ofEntries(
            Map.entry("B", 1L),
            Map.entry("KB", 1_000L), Map.entry("MB", 1_000_000L), Map.entry("GB", 1_000_000_000L),
            Map.entry("TB", 1_000_000_000_000L),
            Map.entry("KiB", 1L << 10), Map.entry("MiB", 1L << 20), Map.entry("GiB", 1L << 30),
            Map.entry("TiB", 1L << 40));

    private static final Map<String, Double> RATE_UNITS = Map.ofEntries(
            Map.entry("B/s", 1.0), Map.entry("KB/s", 1e3), Map.entry("MB/s", 1e6), Map.entry("GB/s", 1e9),
            Map.entry("TB/s", 1e12),
            Map.entry("KiB/s", 1024.0), Map.entry("MiB/s", 1024.0 * 1024), Map.entry("GiB/s", 1024.0 * 1024 * 1024),
            Map.entry("b/s", 1.0 / 8), Map.entry("Kb/s", 1e3 / 8), Map.entry("Mb/s", 1e6 / 8),
            Map.entry("Gb/s", 1e9 / 8), Map.entry("Tb/s", 1e12 / 8));

    private static final Map<String, Long> TIME_UNITS = Map.of(
            "s", TimeSpan.PICOS_PER_SECOND, "ms", TimeSpan.PICOS_PER_MILLI, "us", TimeSpan.PICOS_PER_MICRO,
            "µs", TimeSpan.PICOS_PER_MICRO, "ns", TimeSpan.PICOS_PER_NANO, "ps", 1L);

    private static final String SIZE_HELP = "bytes, K, M, G, T (x1024, as nccl-tests), KiB, MiB, GiB, TiB, or B, KB, MB, GB, TB (x1000)";
    /** nccl-tests' one-letter suffixes, either case: powers of 1024. */
    private static final Map<String, Long> LETTER_SIZES = Map.of("K", 1L << 10, "M", 1L << 20, "G", 1L << 30, "T", 1L << 40);
    private static final String RATE_HELP = "B/s, KB/s, MB/s, GB/s, TB/s (bytes) or b/s, Kb/s, Mb/s, Gb/s, Tb/s (bits)";
    private static final String TIME_HELP = "s, ms, us, ns or ps";

    private Units() {}

    /**
     * A data size: a whole number of bytes, or a number with a unit; K, M, G and T alone (either
     * case) are powers of 1024 as in nccl-tests, KiB .. TiB too, KB .. TB powers of 1000.
     */
    public static DataSize parseSize(String text) {
        Matcher bare = Pattern.compile("\\s*([+-]?\\d+)\\s*").matcher(text == null ? "" : text);
        Quantity q = bare.matches() ? new Quantity(new BigDecimal(bare.group(1)), "B") : quantity(text, "data size", SIZE_HELP);
        Long factor = SIZE_UNITS.getOrDefault(q.unit, LETTER_SIZES.get(q.unit.toUpperCase(Locale.ROOT)));
        if (factor == null) {
            throw unknownUnit(text, q.unit, "data size", SIZE_HELP);
        }
        BigDecimal bytes = q.value.multiply(BigDecimal.valueOf(factor));
        if (bytes.signum() < 0) {
            throw new InputException("'" + text.trim() + "' is negative; a data size must be zero or more");
        }
        try {
            return new DataSize(bytes.setScale(0, RoundingMode.UNNECESSARY).longValueExact());
        } catch (ArithmeticException e) {
            throw new InputException("'" + text.trim() + "' is not a whole number of bytes, or is too large");
        }
    }

    /** A thousand times the fastest link modelled: a larger rate is a typo, and products of it overflow. */
    private static final double MAX_RATE = 1e15;
    /**
     * Slower than any link a GPU cluster has (8 Mb/s): below it a gigabyte takes weeks, and the
     * simulated times of the sizes people run leave the clock's range.
     */
    private static final double MIN_RATE = 1e6;

    public static Rate parseRate(String text) {
        Quantity q = quantity(text, "rate", RATE_HELP);
        Double factor = RATE_UNITS.get(q.unit);
        if (factor == null) {
            throw unknownUnit(text, q.unit, "rate", RATE_HELP);
        }
        double value = q.value.doubleValue() * factor;
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new InputException("'" + text.trim() + "' must be a positive, finite rate");
        }
        if (value > MAX_RATE) {
            throw new InputException("'" + text.trim() + "' is beyond any link; expected at most 1PB/s");
        }
        if (value < MIN_RATE) {
            throw new InputException("'" + text.trim() + "' is slower than any link; expected at least 1MB/s");
        }
        return new Rate(value);
    }

    public static TimeSpan parseTime(String text) {
        Quantity q = quantity(text, "time", TIME_HELP);
        Long factor = TIME_UNITS.get(q.unit);
        if (factor == null) {
            throw unknownUnit(text, q.unit, "time", TIME_HELP);
        }
        BigDecimal picos = q.value.multiply(BigDecimal.valueOf(factor));
        if (picos.signum() < 0) {
            throw new InputException("'" + text.trim() + "' is negative; a time must be zero or more");
        }
        try {
            return new TimeSpan(picos.setScale(0, RoundingMode.HALF_EVEN).longValueExact());
        } catch (ArithmeticException e) {
            throw new InputException("'" + text.trim() + "' is too large a time");
        }
    }

    private record Quantity(BigDecimal value, String unit) {}

    private static Quantity quantity(String text, String what, String help) {
        if (text == null || text.isBlank()) {
            throw new InputException("empty " + what + "; expected a number with a unit (" + help + ")");
        }
        Matcher m = QUANTITY.matcher(text);
        if (!m.matches()) {
            throw new InputException("'" + text.trim() + "' is not a " + what + "; expected a number with a unit (" + help + ")");
        }
        if (m.group(2).isEmpty()) {
            throw new InputException("'" + text.trim() + "' has no unit; add one of " + help);
        }
        try {
            return new Quantity(new BigDecimal(m.group(1)), m.group(2));
        } catch (NumberFormatException e) {
            throw new InputException("'" + text.trim() + "': the number is out of range (" + e.getMessage() + ")"); // 1e3091048576
        }
    }

    private static InputException unknownUnit(String text, String unit, String what, String help) {
        return new InputException("'" + text.trim() + "': unknown " + what + " unit '" + unit + "'; expected " + help);
    }

    static String formatTime(long picos) {
        if (picos >= TimeSpan.PICOS_PER_SECOND) {
            return trim(picos / (double) TimeSpan.PICOS_PER_SECOND) + "s";
        } else if (picos >= TimeSpan.PICOS_PER_MILLI) {
            return trim(picos / (double) TimeSpan.PICOS_PER_MILLI) + "ms";
        } else if (picos >= TimeSpan.PICOS_PER_MICRO) {
            return trim(picos / (double) TimeSpan.PICOS_PER_MICRO) + "us";
        } else if (picos >= TimeSpan.PICOS_PER_NANO) {
            return trim(picos / (double) TimeSpan.PICOS_PER_NANO) + "ns";
        }
        return picos + "ps";
    }

    static String formatSize(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int i = 0;
        double v = bytes;
        while (i < units.length - 1 && v >= 1024 && bytes % (1L << (10 * (i + 1))) == 0) {
            v /= 1024;
            i++;
        }
        return trim(v) + units[i];
    }

    static String formatRate(double bytesPerSecond) {
        return trim(bytesPerSecond / 1e9) + "GB/s";
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.4f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
