package dev.collsim.scenarios.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The foundation's accuracy targets against the measured 8 x H100 ring runs, in the launch mode
 * they were measured (one thread driving 8 GPUs).
 */
class CalibrationAccuracyTest {
    private static Validation validation;

    /** The data sets these targets are about (the rest of the bundled set is scored by PublishedTablesTest's table). */
    private static final java.util.Set<String> CHECKED = java.util.Set.of("AH_2080TI_2G_SHM", "KW_P5_2N_2223", "TG_H100_1N8_RING",
            "TG_H100_1N8_SLURM_NVLS", "TG_H100_1N8_SLURM_RING", "XR_H100_10N1", "SE_P2P_H100");

    @BeforeAll
    static void simulateTheCalibrationSet() {
        validation = Validation.run(new ValidationSpec(CalibrationSet.bundled().stream().filter(r -> CHECKED.contains(r.dataset())).toList(),
                CalibrationSet.setups()));
    }

    private static List<Validation.Point> points(String dataset, String op) {
        return validation.points().stream()
                .filter(p -> p.row().dataset().equals(dataset) && p.row().op().equals(op))
                .toList();
    }

    private static Validation.Point at(String dataset, String op, long size) {
        return points(dataset, op).stream().filter(p -> p.row().sizeBytes() == size).findFirst().orElseThrow();
    }

    @Test
    void ringAllReduceTimesFromOneMegabyte() {
        List<Validation.Point> ring = points("TG_H100_1N8_SLURM_RING", "all_reduce");
        assertEquals(14, ring.size());
        for (Validation.Point p : ring) {
            double limit = p.row().sizeBytes() >= 64L << 20 ? 10 : 25;
            assertTrue(Math.abs(p.errorPct()) <= limit,
                    p.row().sizeBytes() + " B: " + p.errorPct() + " % (limit " + limit + " %)");
        }
    }

    @Test
    void ringAllReduceBusBandwidthAt8GiB() {
        Validation.Point p = at("TG_H100_1N8_SLURM_RING", "all_reduce", 8L << 30);
        double busbw = p.simulated().busBwGBps();
        assertTrue(Math.abs(busbw - 368.15) / 368.15 <= 0.10, "busbw " + busbw + " GB/s against 368 measured");
    }

    @Test
    void allGatherAndReduceScatterAt8GiB() {
        for (String op : List.of("all_gather", "reduce_scatter")) {
            Validation.Point p = at("TG_H100_1N8_RING", op, 8L << 30);
            assertTrue(Math.abs(p.errorPct()) <= 10, op + ": " + p.errorPct() + " %");
        }
    }

    @Test
    void theHostFloorOfOneThreadDrivingEightGpus() {
        Validation.Point tiny = at("TG_H100_1N8_RING", "all_reduce", 8);
        assertTrue(Math.abs(tiny.errorPct()) <= 10, "8 B all_reduce: " + tiny.errorPct() + " %");
    }

    @Test
    void datasetsNotYetModelledAreListedNotDropped() {
        assertFalse(validation.skipped().isEmpty());
        assertTrue(validation.skipped().stream().anyMatch(s -> s.startsWith("SE_P2P_H100")));
    }

    /** NCCL's default choice on 8 x H100 is NVLS from a few MiB: 479 GB/s busbw at 8 GiB, times within 15 % from 4 MiB. */
    @Test
    void nvlsAllReduceWithAutomaticChoice() {
        List<Validation.Point> nvls = points("TG_H100_1N8_SLURM_NVLS", "all_reduce");
        assertEquals(14, nvls.size());
        for (Validation.Point p : nvls) {
            if (p.row().sizeBytes() >= 4L << 20) {
                assertEquals("NVLS", p.simulated().algo(), p.row().sizeBytes() + " B");
                assertTrue(Math.abs(p.errorPct()) <= 15, p.row().sizeBytes() + " B: " + p.errorPct() + " %");
            }
        }
        double busbw = at("TG_H100_1N8_SLURM_NVLS", "all_reduce", 8L << 30).simulated().busBwGBps();
        assertTrue(Math.abs(busbw - 479) / 479 <= 0.10, "NVLS busbw " + busbw + " GB/s against 479 measured");
    }

    /** 10 nodes x 1 H100 over a 400 Gb/s NIC: all_reduce busbw of 48-49 GB/s from 128 MiB, within 10 %. */
    @Test
    void tenNodesOfOneGpuOverTheNetwork() {
        for (Validation.Point p : points("XR_H100_10N1", "all_reduce")) {
            if (p.row().sizeBytes() >= 128L << 20) {
                assertTrue(Math.abs(p.errorPct()) <= 10, p.row().sizeBytes() + " B: " + p.errorPct() + " %");
                assertTrue(p.simulated().busBwGBps() > 44 && p.simulated().busBwGBps() < 53, "busbw " + p.simulated().busBwGBps());
            }
        }
    }

    /**
     * 2 x AWS p5 over EFA, NCCL's choice (NVLS-Tree at large sizes): within 20 % at every size from
     * 64 MiB; up to 8 KiB, where two network steps of a tree set the time (EFA's per-message latency,
     * not the 75 us its plugin reports to NCCL's tuner, which made these 2.5x too slow), geomean
     * |error| within 10 % and every row within 30 % (the first size, 8 B, measured 86 us where 16 B to
     * 1 KiB take 63-71).
     */
    @Test
    void twoP5NodesOverEfa() {
        List<Validation.Point> kw = points("KW_P5_2N_2223", "all_reduce");
        assertEquals(32, kw.size());
        List<Double> small = new java.util.ArrayList<>();
        for (Validation.Point p : kw) {
            if (p.row().sizeBytes() >= 64L << 20) {
                assertEquals("NVLSTree", p.simulated().algo(), p.row().sizeBytes() + " B");
                assertTrue(Math.abs(p.errorPct()) <= 20, p.row().sizeBytes() + " B: " + p.errorPct() + " %");
            }
            if (p.row().sizeBytes() <= 8192) {
                assertTrue(Math.abs(p.errorPct()) <= 30, p.row().sizeBytes() + " B: " + p.errorPct() + " %");
                small.add(p.ratio());
            }
        }
        assertEquals(11, small.size());
        assertTrue(LogError.geomeanAbs(small) <= 0.10, "geomean |error| up to 8 KiB: " + LogError.geomeanAbs(small));
    }

    /**
     * 2 x RTX 2080 Ti without P2P, through host memory: all_reduce (4.0 GB/s) and broadcast (11.1 GB/s)
     * within 20 % at every size from 64 MiB; all_reduce well below broadcast, as both GPUs write to and
     * read from host memory through one switch uplink, one primitive at a time.
     */
    @Test
    void twoGpusThroughHostMemory() {
        for (String op : List.of("all_reduce", "broadcast")) {
            List<Validation.Point> ah = points("AH_2080TI_2G_SHM", op).stream()
                    .filter(p -> p.row().sizeBytes() >= 64L << 20).toList();
            assertEquals(5, ah.size(), op);
            for (Validation.Point p : ah) {
                assertTrue(Math.abs(p.errorPct()) <= 20, op + " " + p.row().sizeBytes() + " B: " + p.errorPct() + " %");
            }
        }
        double allReduce = at("AH_2080TI_2G_SHM", "all_reduce", 1L << 30).simulated().busBwGBps();
        double broadcast = at("AH_2080TI_2G_SHM", "broadcast", 256L << 20).simulated().busBwGBps();
        assertTrue(allReduce < broadcast / 2, "all_reduce " + allReduce + " GB/s, broadcast " + broadcast + " GB/s");
    }
}
