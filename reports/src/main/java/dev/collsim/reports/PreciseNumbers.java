package dev.collsim.reports;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Numbers as CSV and JSON carry them: the shortest exact value with at most {@link Column#PRECISE_DECIMALS} decimals. */
public final class PreciseNumbers {
    private PreciseNumbers() {}

    /** The value kept, or null for a NaN or an infinity (no value). */
    public static BigDecimal of(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return null;
        }
        BigDecimal v = BigDecimal.valueOf(d).setScale(Column.PRECISE_DECIMALS, RoundingMode.HALF_EVEN).stripTrailingZeros();
        return v.scale() < 0 ? v.setScale(0) : v;
    }
}
