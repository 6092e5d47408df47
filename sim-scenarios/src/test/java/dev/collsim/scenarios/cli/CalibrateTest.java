package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** calibrate finds the constants a measurement was made with, and its override file loads. */
class CalibrateTest {
    @Test
    void recoversTheRateAMeasurementWasMadeWith(@TempDir Path dir) throws Exception {
        // "Measured": the model itself with NVLink at 80 % of its rate, bandwidth-bound sizes.
        CliRunner slow = CliRunner.run("bench", "all_reduce", "-b", "64M", "-e", "1G", "-f", "4", "--algo", "ring", "--scale", "nvlink=0.8",
                "--format", "csv");
        assertEquals(0, slow.code(), slow.err());
        StringBuilder csv = new StringBuilder("dataset_id,op,dtype,size_bytes,time_us\n");
        slow.out().lines().skip(1).forEach(l -> {
            String[] c = l.split(",");
            csv.append("SLOW,all_reduce,float,").append(c[0]).append(',').append(c[5]).append('\n');
        });
        Path measured = dir.resolve("slow.csv");
        Files.writeString(measured, csv.toString());
        Path over = dir.resolve("over.yaml");
        CliRunner fit = CliRunner.run("calibrate", measured.toString(), "--algo", "ring", "--overrides-out", over.toString());
        assertEquals(0, fit.code(), fit.err());
        Matcher m = Pattern.compile("scale: \"nvlink=([0-9.]+)\"").matcher(Files.readString(over));
        assertTrue(m.find(), Files.readString(over));
        assertEquals(0.8, Double.parseDouble(m.group(1)), 0.03, fit.out());
        // The override file reproduces the measurement.
        CliRunner again = CliRunner.run("bench", "all_reduce", "-b", "1G", "-e", "1G", "--algo", "ring", "--overrides", over.toString(),
                "--format", "csv");
        double t = Double.parseDouble(again.out().lines().skip(1).findFirst().orElseThrow().split(",")[5]);
        double want = Double.parseDouble(slow.out().lines().reduce((a, b) -> b).orElseThrow().split(",")[5]);
        assertEquals(want, t, want * 0.03);
    }

    /** A measurement ten times slower than any NVLink rate explains: the fit stops at its bound and says so. */
    @Test
    void aFitAtItsBoundSaysTheClassDoesNotExplainTheMeasurement(@TempDir Path dir) throws Exception {
        CliRunner model = CliRunner.run("bench", "all_reduce", "-b", "64M", "-e", "1G", "-f", "4", "--algo", "ring", "--format", "csv");
        StringBuilder csv = new StringBuilder("dataset_id,op,dtype,size_bytes,time_us\n");
        model.out().lines().skip(1).forEach(l -> {
            String[] c = l.split(",");
            csv.append("SLOW,all_reduce,float,").append(c[0]).append(',').append(10 * Double.parseDouble(c[5])).append('\n');
        });
        Path measured = dir.resolve("ten-times.csv");
        Files.writeString(measured, csv.toString());
        CliRunner fit = CliRunner.run("calibrate", measured.toString(), "--algo", "ring");
        assertEquals(0, fit.code(), fit.err());
        assertTrue(fit.out().contains("a factor reached the fit's bound (x4 or 1/4)"), fit.out());
    }
}
