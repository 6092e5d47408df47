package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The inference engines' all-reduce kernels against vLLM's own kernel-level timings on H100s
 * (vLLM PR #24111, {@code benchmark_device_communicators}: {@code ca_1stage} is the one-shot kernel,
 * {@code ca_2stage} the two-shot; tensors of shape (N, 8192) in bfloat16, times in microseconds).
 * docs/decode.md shows the whole table, the larger two-shot sizes included.
 */
class KernelMeasurementsTest {
    @ParameterizedTest(name = "{0} on {1} GPUs, {2} B: measured {3} us")
    @CsvSource({
        "oneshot, 4, 524288, 10", "oneshot, 4, 1048576, 15", "oneshot, 4, 2097152, 22",
        "oneshot, 6, 524288, 13", "oneshot, 6, 1048576, 21", "oneshot, 6, 2097152, 38",
        "twoshot, 4, 524288, 17", "twoshot, 4, 1048576, 18",
        "twoshot, 6, 524288, 15", "twoshot, 6, 1048576, 17"})
    void kernelTimesAreWithinTwelvePercentOfVllmsMeasurements(String algo, int gpus, long bytes, double measuredUs) {
        double simulated = CliRunner.timeUs("bench", "all_reduce", "--gpus-per-node", String.valueOf(gpus), "-b", String.valueOf(bytes),
                "-e", String.valueOf(bytes), "-d", "bfloat16", "--algo", algo, "--format", "csv");
        assertEquals(measuredUs, simulated, 0.12 * measuredUs, algo + " on " + gpus + " GPUs at " + bytes + " B");
    }
}
