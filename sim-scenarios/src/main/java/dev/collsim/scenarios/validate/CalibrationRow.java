package dev.collsim.scenarios.validate;

/**
 * One measured nccl-tests line of the calibration set.
 *
 * @param sizeBytes  nccl-tests' size, or -1 for lines that are not nccl-tests lines
 * @param timeMicros out-of-place time as printed, or NaN where the source did not publish it
 */
public record CalibrationRow(String dataset, String op, String dtype, long sizeBytes, double timeMicros, int line, int nodes) {
    /** A row without a node count of its own: its data set's set-up says. */
    public CalibrationRow(String dataset, String op, String dtype, long sizeBytes, double timeMicros, int line) {
        this(dataset, op, dtype, sizeBytes, timeMicros, line, 0);
    }
}
