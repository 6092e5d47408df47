package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The what-if knobs move the result the way the physics says. */
class WhatIfTest {
    private static double busbw(String... args) {
        CliRunner r = CliRunner.run(args);
        assertEquals(0, r.code(), r.err());
        return Double.parseDouble(r.out().split("\n")[1].split(",")[7]);
    }

    private static String[] bench(String op, String... more) {
        String[] base = {"bench", op, "--nodes", "2", "-b", "1G", "-e", "1G", "--format", "csv"};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void halfTheNicHalvesTheRingAcrossNodes() {
        double full = busbw(bench("all_reduce", "--algo", "ring"));
        double half = busbw(bench("all_reduce", "--algo", "ring", "--nic-bw", "200Gb/s"));
        assertEquals(0.5, half / full, 0.03);
        assertEquals(half, busbw(bench("all_reduce", "--algo", "ring", "--scale", "network=0.5")), 1e-9);
        assertTrue(busbw(bench("all_reduce", "--algo", "ring", "--nics-per-gpu", "2")) > full * 1.05);
    }

    @Test
    void anOversubscribedSpineSlowsCrossRailTrafficOnly() {
        double ring = busbw(bench("all_reduce", "--algo", "ring"));
        assertEquals(ring, busbw(bench("all_reduce", "--algo", "ring", "--oversubscription", "4:1")), 1e-9,
                "NCCL's rings stay on their rail");
        double a2a = busbw(bench("alltoall"));
        assertTrue(busbw(bench("alltoall", "--oversubscription", "4:1")) < a2a * 0.5, "alltoall crosses rails");
    }

    @Test
    void slowerNvlinkSlowsANode() {
        String[] node = {"bench", "all_reduce", "--algo", "ring", "-b", "8G", "-e", "8G", "--format", "csv"};
        double full = busbw(node);
        String[] half = {"bench", "all_reduce", "--algo", "ring", "-b", "8G", "-e", "8G", "--format", "csv", "--scale", "nvlink=0.5"};
        assertEquals(0.5, busbw(half) / full, 0.05);
    }
}
