package dev.collsim.scenarios.cli;

import static dev.collsim.scenarios.cli.CliRunner.busbw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The what-if knobs move the result the way the physics says. */
class WhatIfTest {
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

    /**
     * A class's latency is NCCL's step latency for it (hwLat), not only its wires' hops: doubling the
     * network's adds the 2-node tree's network steps again at 8 B (it had moved nothing below x5), and
     * leaves one node alone; doubling NVLink's moves one node's small all_reduce.
     */
    @Test
    void scalingALinkClassLatencyMovesSmallSizes() {
        String[] twoNodes = {"bench", "all_reduce", "--nodes", "2", "-b", "8", "-e", "8", "--format", "csv"};
        double base = CliRunner.timeUs(twoNodes);
        assertTrue(CliRunner.timeUs(concat(twoNodes, "--scale-latency", "network=2")) > base * 1.15);
        String[] oneNode = {"bench", "all_reduce", "-b", "8", "-e", "8", "--format", "csv"};
        double node = CliRunner.timeUs(oneNode);
        assertEquals(node, CliRunner.timeUs(concat(oneNode, "--scale-latency", "network=2")), 1e-9);
        assertTrue(CliRunner.timeUs(concat(oneNode, "--scale-latency", "nvlink=2")) > node * 1.2);
    }

    @Test
    void anOversubscribedSpineSlowsCrossRailTrafficOnly() {
        double ring = busbw(bench("all_reduce", "--algo", "ring"));
        assertEquals(ring, busbw(bench("all_reduce", "--algo", "ring", "--oversubscription", "4:1")), 1e-9,
                "NCCL's rings stay on their rail");
        double a2a = busbw(bench("alltoall"));
        assertTrue(busbw(bench("alltoall", "--oversubscription", "4:1")) < a2a * 0.5, "alltoall crosses rails");
    }

    /**
     * Without GPUDirect RDMA each node's bytes cross its PCIe switch's uplink twice each way (GPU to host
     * memory and host memory to NIC, and back on the other side), which costs more than the NIC gives;
     * inside one node nothing changes.
     */
    @Test
    void withoutGpuDirectTheNetworkPathBouncesThroughHostMemory() {
        String[] tenNodes = {"bench", "all_reduce", "--nodes", "10", "--gpus-per-node", "1", "-b", "1G", "-e", "1G", "--format", "csv"};
        double gdr = busbw(tenNodes);
        double noGdr = busbw(concat(tenNodes, "--gdr", "off"));
        assertTrue(noGdr < gdr * 0.7 && noGdr > gdr * 0.3, "GDR off " + noGdr + " GB/s against " + gdr + " GB/s");
        double twoNodes = busbw(bench("all_reduce", "--algo", "ring", "--gdr", "off"));
        assertTrue(twoNodes < busbw(bench("all_reduce", "--algo", "ring")) * 0.7, "2 nodes, GDR off: " + twoNodes);
        String[] node = {"bench", "all_reduce", "-b", "1G", "-e", "1G", "--format", "csv"};
        assertEquals(busbw(node), busbw(concat(node, "--gdr", "off")), 1e-9);
    }

    /** Sockets cannot reach GPU memory: a TCP network always goes through host memory, --gdr or not. */
    @Test
    void tcpHasNoGpuDirect() {
        String[] tcp = {"bench", "all_reduce", "--nodes", "4", "--gpus-per-node", "1", "--network", "tcp", "-b", "1G", "-e", "1G",
            "--format", "csv"};
        double withFlag = busbw(concat(tcp, "--gdr", "on"));
        assertEquals(withFlag, busbw(concat(tcp, "--gdr", "off")), 1e-9);
        assertTrue(withFlag < 5.0 && withFlag > 5.0 * 0.8, "NCCL's socket threads (40 Gb/s of the 100 Gb/s NIC) bound the ring: "
                + withFlag);
    }

    /** A NIC's link down for 500 us in the middle of a rail-aligned ring: every ring waits on it, so the collective takes about that much longer. */
    @Test
    void anOutageHoldsTheRingForItsDuration() throws Exception {
        String[] ring = {"bench", "all_reduce", "--nodes", "2", "--algo", "ring", "-b", "256M", "-e", "256M", "--replications", "1",
            "--format", "json"};
        double healthy = meanTime(CliRunner.run(ring));
        double down = meanTime(CliRunner.run(concat(ring, "--outage", "n0.nic3:leaf3@100us+500us")));
        assertEquals(500, down - healthy, 25);
    }

    private static double meanTime(CliRunner r) throws Exception {
        assertEquals(0, r.code(), r.err());
        var q = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out()).get("quantities");
        return q.get(q.fieldNames().next()).get("mean").asDouble();
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /**
     * Several spines share the leaves' uplinks and ECMP hashes each pair's traffic onto one: some
     * collide, so cross-rail alltoall loses bandwidth against one ideal spine of the same total, while
     * the rail-aligned ring never touches a spine.
     */
    @Test
    void ecmpOverSeveralSpinesCollides() {
        double one = busbw(bench("alltoall"));
        double eight = busbw(bench("alltoall", "--spines", "8"));
        assertTrue(eight < one * 0.9, "8 spines " + eight + " GB/s against one " + one + " GB/s");
        assertEquals(busbw(bench("all_reduce", "--algo", "ring")), busbw(bench("all_reduce", "--algo", "ring", "--spines", "8")), 1e-9);
        assertEquals(eight, busbw(bench("alltoall", "--spines", "8")), 1e-9, "the hash is deterministic");
    }

    /** NVLink's latency scaled above the network's is a slower node, not an error (it once made a negative time). */
    @Test
    void nvlinkLatencyMayExceedTheNetworks() {
        String[] base = {"bench", "all_reduce", "-b", "1K", "-e", "1K", "--algo", "ring", "--format", "csv"};
        CliRunner r = CliRunner.run(concat(base, "--scale-latency", "nvlink=4"));
        assertEquals(0, r.code(), r.err());
        double slow = Double.parseDouble(r.out().lines().skip(1).findFirst().orElseThrow().split(",")[5]);
        double normal = Double.parseDouble(CliRunner.run(base).out().lines().skip(1).findFirst().orElseThrow().split(",")[5]);
        assertTrue(slow > normal, slow + " vs " + normal);
    }

    @Test
    void slowerNvlinkSlowsANode() {
        String[] node = {"bench", "all_reduce", "--algo", "ring", "-b", "8G", "-e", "8G", "--format", "csv"};
        double full = busbw(node);
        String[] half = {"bench", "all_reduce", "--algo", "ring", "-b", "8G", "-e", "8G", "--format", "csv", "--scale", "nvlink=0.5"};
        assertEquals(0.5, busbw(half) / full, 0.05);
    }

    @Test
    void oneSlowRailSlowsEveryRingThatCrossesIt() {
        double full = busbw(bench("all_reduce", "--algo", "ring"));
        // The rings of rail 3 wait on the halved NIC and the collective waits on them.
        assertEquals(0.5, busbw(bench("all_reduce", "--algo", "ring", "--degrade", "n0.nic3:leaf3=0.5")) / full, 0.03);
        // A GPU at PCIe x8 halves its path to its NIC, below the NIC's rate.
        double x8 = busbw(bench("all_reduce", "--algo", "ring", "--degrade", "n0.gpu3:n0.pcie3=0.5"));
        assertTrue(x8 < full * 0.7 && x8 > full * 0.4, "x8: " + x8 + " vs " + full);
        // Either end may be named first.
        assertEquals(x8, busbw(bench("all_reduce", "--algo", "ring", "--degrade", "n0.pcie3:n0.gpu3=0.5")), 1e-9);
    }

    @Test
    void aGpuThatLosesItsNvlinkLosesNvlsAndDetoursThroughItsNic() {
        CliRunner r = CliRunner.run(bench("all_reduce", "--link-down", "n0.gpu3:n0.nvswitch"));
        assertEquals(0, r.code(), r.err());
        String[] row = r.out().split("\n")[1].split(",");
        assertEquals("Ring", row[8], "NCCL drops NVLS when a GPU has no NVSwitch link");
        assertTrue(Double.parseDouble(row[7]) < 0.2 * busbw(bench("all_reduce")), r.out());
    }

    /**
     * A NIC down: GPU 3 reaches the network as NCCL's PXN does, over NVLink to a peer and out through
     * the peer's NIC, which then carries two rails' rings: the all_reduce runs at about half.
     */
    @Test
    void aNicDownDetoursThroughAPeersNic() {
        double full = busbw(bench("all_reduce", "--algo", "ring"));
        double detour = busbw(bench("all_reduce", "--algo", "ring", "--link-down", "n0.nic3:leaf3"));
        assertEquals(0.5, detour / full, 0.03);
    }

    @Test
    void aLinkDownThatStrandsAGpuIsAClearError() {
        CliRunner r = CliRunner.run(bench("all_reduce", "--link-down", "n0.gpu3:n0.nvswitch,n0.gpu3:n0.pcie3"));
        assertEquals(2, r.code());
        assertEquals("collsim: with n0.gpu3:n0.nvswitch down, n0.gpu3:n0.pcie3 down: device 'n0.gpu3' is not connected to 'leaf0'\n",
                r.err());
        for (String[] bad : new String[][] {{"--degrade", "n0.gpu3:n0.pcie=0.5", "no device 'n0.pcie'"},
                {"--degrade", "n0.gpu3:leaf3=0.5", "no link joins these two devices"},
                {"--degrade", "n0.gpu3:n0.pcie3=0", "the factor must be a positive number"},
                {"--link-down", "n0.gpu3", "expected DEVICE:DEVICE"}}) {
            CliRunner e = CliRunner.run(bench("all_reduce", bad[0], bad[1]));
            assertEquals(2, e.code(), bad[1]);
            assertTrue(e.err().contains(bad[2]) && e.err().lines().count() == 1, e.err());
        }
    }

    @Test
    void linkEditsApplyToTopologyFilesToo() {
        String[] file = {"bench", "all_reduce", "--topology", "../topologies/nvlink-pairs-4gpu.yaml", "-b", "256M", "-e", "256M",
                "--format", "csv"};
        double healthy = busbw(file);
        String[] slowSocket = java.util.Arrays.copyOf(file, file.length + 2);
        slowSocket[file.length] = "--degrade";
        slowSocket[file.length + 1] = "cpu0:cpu1=0.25";
        assertTrue(busbw(slowSocket) < healthy * 0.6, "the socket link carries the ring between the pairs");
    }
}
