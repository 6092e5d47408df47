package dev.collsim.reports;

/**
 * A column of a {@link Table}.
 *
 * @param key      machine name: the CSV header and the JSON field
 * @param title    human header of the text table
 * @param unit     second header line of the text table, e.g. {@code (us)}, or empty
 * @param width    text-table width
 * @param decimals digits after the point for decimal values in the text table (CSV and JSON keep
 *                 {@link #PRECISE_DECIMALS})
 * @param left     aligned left in the text table (a label), where every other column aligns right
 */
public record Column(String key, String title, String unit, int width, int decimals, boolean left) {
    /** Decimals kept by machine-readable formats. */
    public static final int PRECISE_DECIMALS = 4;

    public static Column text(String key, String title, int width) {
        return new Column(key, title, "", width, 0, false);
    }

    /** Text aligned left in the text table: the labels of a list of labelled values. */
    public static Column label(String key, String title, int width) {
        return new Column(key, title, "", width, 0, true);
    }

    public static Column number(String key, String title, String unit, int width, int decimals) {
        return new Column(key, title, unit, width, decimals, false);
    }
}
