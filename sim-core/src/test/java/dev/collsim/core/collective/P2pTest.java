package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.fabric.Link;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** alltoall and sendrecv: every block reaches its rank, bytes are conserved, links stay within their rate. */
class P2pTest {
    private static final ProtocolCosts COSTS = new ProtocolCosts(Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofNanos(700));

    /**
     * ncclP2pSchedule: groups (one GPU a node: every rank) in NCCL's quadratic order
     * 0,1,3,6,10,15,5,12,4,13,7,2,14,11,9,8 (16 groups), the ranks of a group in turn; inside one node
     * the ranks in turn.
     */
    @Test
    void peerOrderIsNcclsGroupedSchedule() {
        assertArrayEquals(new int[] {0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8},
                P2pAlgorithm.sendPeersOfRankZero(16, 1));
        assertArrayEquals(new int[] {0, 1, 3, 6, 2, 5, 4}, P2pAlgorithm.sendPeersOfRankZero(7, 1));
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, P2pAlgorithm.sendPeersOfRankZero(8, 8));
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31,
                16, 17, 18, 19, 20, 21, 22, 23}, P2pAlgorithm.sendPeersOfRankZero(32, 8));
        // Four GPUs a node: groups of four (the gcd of 8 and 4), four groups in order 0, 1, 3, 2.
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 8, 9, 10, 11},
                P2pAlgorithm.sendPeersOfRankZero(16, 4));
    }

    @ParameterizedTest(name = "{0} n={1} {2}B parts={3} {4}")
    @CsvSource({
        "ALL_TO_ALL, 2, 64, 4, LL", "ALL_TO_ALL, 8, 8388608, 4, SIMPLE", "ALL_TO_ALL, 5, 1000000, 2, SIMPLE",
        "ALL_TO_ALL, 12, 12582912, 2, SIMPLE", "SEND_RECV, 8, 3000000, 32, SIMPLE", "SEND_RECV, 3, 100, 1, LL"})
    void blocksReachTheirRanks(CollectiveOp op, int n, long size, int parts, Protocol proto) {
        long bytes = op.sizeIsTotal() ? size / n * n : size;
        CollectiveRequest req = new CollectiveRequest(op, n, bytes, 0, proto, parts);
        Schedule s = new P2pAlgorithm(512 * 1024, n, 32).schedule(req);
        TestFabrics f = TestFabrics.star(n, 40, 0.2);
        TestFabrics.Tracked run = f.run(s, COSTS, null, TimeSpan.ofMicros(1));
        FlowNetwork net = run.network();
        assertEquals(List.of(), run.tracker().verify());
        long perRank = op == CollectiveOp.ALL_TO_ALL ? bytes / n * (n - 1) : bytes;
        double wire = perRank / proto.wireEfficiency();
        for (Link l : f.fabric.links()) {
            assertEquals(wire, net.bytesCarried(l.id()), s.transferCount() + 1.0, "bytes on " + l);
        }
    }

    /** Across nodes a small Simple send moves in smaller chunks (addP2pToPlan): a quarter below one chunk, a half below eight. */
    @ParameterizedTest(name = "{0} B: {1} transfers")
    @CsvSource({"65536, 2", "524288, 8", "2097152, 16"})
    void smallSendsAcrossNodesTakeSmallerChunks(long bytes, int transfers) {
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.SEND_RECV, 2, bytes, 0, Protocol.SIMPLE, 1);
        Schedule across = new P2pAlgorithm(128 * 1024, 1, 1).schedule(req);
        Schedule inside = new P2pAlgorithm(128 * 1024, 2, 1).schedule(req);
        assertEquals(2 * transfers, across.transferCount(), "both ranks' sends");
        assertEquals(2 * Math.max(1, bytes / (128 * 1024)), inside.transferCount());
    }

    /**
     * 16 ranks of one node on one p2p channel: rounds 1-7 form rank 0's first batch there, rounds 8-15
     * its second (enqueue.cc: one batch per eight rounds). The second waits on a barrier that waits for
     * the first batch's 7 sends to have left and its 7 receives (from ranks 15..9) to have arrived.
     */
    @Test
    void aBatchWaitsForThePreviousBatchOnItsChannel() {
        int n = 16;
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_TO_ALL, n, 16L * n * 1024, 0, Protocol.SIMPLE, 1);
        Schedule s = new P2pAlgorithm(512 * 1024, n, 1).schedule(req);
        int[] preds = new int[s.transferCount()];
        s.countPredecessors(preds);
        int[] succ = new int[s.maxSuccessors()];
        int barriers = 0;
        for (int t = 0; t < s.transferCount(); t++) {
            if (s.kind(t) != TransferKind.LOCAL_COPY) {
                continue;
            }
            barriers++;
            assertEquals(0, s.bytes(t));
            assertEquals(14, preds[t], "the first batch's sends and receives at rank " + s.src(t));
            int k = s.successors(t, succ);
            java.util.Set<Integer> peers = new java.util.TreeSet<>();
            for (int i = 0; i < k; i++) {
                int u = succ[i] >> 1;
                assertEquals(s.src(t), s.src(u));
                peers.add((s.dst(u) - s.src(u) + n) % n);
            }
            assertEquals(java.util.Set.of(8, 9, 10, 11, 12, 13, 14, 15), peers, "the second batch's sends");
        }
        assertEquals(n, barriers, "one barrier a rank");
    }

    /**
     * Across nodes each eight rounds take their own channel base (channel.h), so with as many p2p
     * channels as batches two nodes' batches never share a channel and nothing waits between them.
     */
    @Test
    void acrossNodesBatchesOnTheirOwnChannelsRunTogether() {
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_TO_ALL, 16, 16L * 16 * 65536, 0, Protocol.SIMPLE, 2);
        Schedule s = new P2pAlgorithm(128 * 1024, 8, 16).schedule(req);
        java.util.Set<Integer> firstBatch = new java.util.TreeSet<>();
        java.util.Set<Integer> secondBatch = new java.util.TreeSet<>();
        for (int t = 0; t < s.transferCount(); t++) {
            assertEquals(TransferKind.P2P, s.kind(t), "no barriers");
            (s.step(t) < 8 ? firstBatch : secondBatch).add(s.channel(t));
        }
        assertEquals(java.util.Set.of(0, 1), firstBatch);
        assertEquals(java.util.Set.of(8, 9), secondBatch, "base reverseBits(1) = 8 of 16 channels");
    }
}
