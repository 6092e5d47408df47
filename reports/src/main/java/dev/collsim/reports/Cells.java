package dev.collsim.reports;

import java.math.BigDecimal;
import java.util.Locale;

/** Formatting of cells, shared by the renderers so that every format shows the same value. */
final class Cells {
    private Cells() {}

    /** Human text; a NaN (no value) is left blank. */
    static String human(Object cell, Column c) {
        if (cell instanceof Double d) {
            if (d.isNaN()) {
                return "";
            }
            return String.format(Locale.ROOT, "%." + c.decimals() + "f", d);
        }
        return String.valueOf(cell);
    }

    /** Shortest exact text with at most {@link Column#PRECISE_DECIMALS} decimals, for CSV and JSON. */
    static String precise(Object cell) {
        if (cell instanceof Double d) {
            BigDecimal v = PreciseNumbers.of(d);
            return v == null ? "" : v.toPlainString();
        }
        return String.valueOf(cell);
    }
}
