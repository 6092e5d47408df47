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

    /** The reference's example: for 16 ranks NCCL visits peers at deltas 1,3,6,10,15,5,12,4,13,7,2,14,11,9,8. */
    @Test
    void peerOrderIsNcclsQuadraticSequence() {
        assertArrayEquals(new int[] {1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8}, P2pAlgorithm.peerDeltas(16));
        assertArrayEquals(new int[] {1, 3, 6, 2, 5, 4}, P2pAlgorithm.peerDeltas(7));
    }

    @ParameterizedTest(name = "{0} n={1} {2}B parts={3} {4}")
    @CsvSource({
        "ALL_TO_ALL, 2, 64, 4, LL", "ALL_TO_ALL, 8, 8388608, 4, SIMPLE", "ALL_TO_ALL, 5, 1000000, 2, SIMPLE",
        "ALL_TO_ALL, 12, 12582912, 2, SIMPLE", "SEND_RECV, 8, 3000000, 32, SIMPLE", "SEND_RECV, 3, 100, 1, LL"})
    void blocksReachTheirRanks(CollectiveOp op, int n, long size, int parts, Protocol proto) {
        long bytes = op.sizeIsTotal() ? size / n * n : size;
        CollectiveRequest req = new CollectiveRequest(op, n, bytes, 0, proto, parts);
        Schedule s = new P2pAlgorithm(512 * 1024).schedule(req);
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
        Schedule across = new P2pAlgorithm(128 * 1024, true).schedule(req);
        Schedule inside = new P2pAlgorithm(128 * 1024, false).schedule(req);
        assertEquals(2 * transfers, across.transferCount(), "both ranks' sends");
        assertEquals(2 * Math.max(1, bytes / (128 * 1024)), inside.transferCount());
    }
}
