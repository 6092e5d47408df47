package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** bench on the AMD Instinct platforms, held against public rccl-tests runs (rccl_measured_calibration.csv). */
class InstinctBenchTest {
    /**
     * 8 x MI300X: RCCL's MSCCL runs its all-pairs algorithms to 20 MiB (LL to 512 KiB, then Simple, 8 channels) and its
     * tuner's Simple ring beyond, on its 28 rings twice over (56 channels); HISO_MI300X_1N8_AR measured 17.5 us at 256 KiB, 149.9 at 16 MiB and
     * 5,990.7 at 1 GiB.
     */
    @Test
    void mi300xRunsMscclsAllPairsTo20MiBThenRingsAndTimesAsMeasured() {
        List<String[]> r = CliRunner.csvRows("bench", "all_reduce", "--system", "mi300x-8x", "-b", "256K", "-e", "1G", "-f", "64",
                "--format", "csv");
        assertEquals(List.of("AllPairs", "AllPairs", "Ring"), r.stream().map(c -> c[8]).toList());
        assertEquals(List.of("LL", "Simple", "Simple"), r.stream().map(c -> c[9]).toList());
        assertEquals(List.of("8", "8", "56"), r.stream().map(c -> c[10]).toList());
        assertEquals(17.46, Double.parseDouble(r.get(0)[5]), 17.46 * 0.1);
        assertEquals(149.9, Double.parseDouble(r.get(1)[5]), 149.9 * 0.1);
        assertEquals(5990.7, Double.parseDouble(r.get(2)[5]), 5990.7 * 0.05);
    }

    /** 8 x MI355X run by one process: its launch floor to 256 KiB (33-39 us measured), its faster links at 1 GiB (402.6 GB/s busbw). */
    @Test
    void mi355xIsFasterOnTheSameRings() {
        List<String[]> r = CliRunner.csvRows("bench", "all_reduce", "--system", "mi355x-8x", "-g", "8", "-b", "256K", "-e", "1G", "-f", "4096",
                "--format", "csv");
        double floor = Double.parseDouble(r.get(0)[5]);
        assertTrue(floor > 33 && floor < 40, floor + " us");
        double busbw = Double.parseDouble(r.get(1)[7]);
        assertTrue(busbw > 360 && busbw < 420, busbw + " GB/s");
        double mi300x = CliRunner.busbw("bench", "all_reduce", "--system", "mi300x-8x", "-b", "1G", "-e", "1G", "--format", "csv");
        assertTrue(busbw > 1.1 * mi300x, busbw + " against MI300X's " + mi300x);
    }

    /** rocm-smi --showtopo's printout of an MI300X node imports as the preset's platform: the same rings, the same times. */
    @Test
    void aRocmSmiPrintoutImportsAsThePreset(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        String file = dir.resolve("mi300x.yaml").toString();
        CliRunner imported = CliRunner.run("topo", "import", "../topologies/mi300x-8x.rocm-smi.txt", "-O", file);
        assertEquals(0, imported.code(), imported.err());
        String preset = CliRunner.run("bench", "all_reduce", "--system", "mi300x-8x", "-b", "64K", "-e", "1G", "-f", "16", "--format", "csv")
                .out();
        String fromFile = CliRunner.run("bench", "all_reduce", "--topology", file, "-b", "64K", "-e", "1G", "-f", "16", "--format", "csv")
                .out();
        assertEquals(preset, fromFile);
    }
}
