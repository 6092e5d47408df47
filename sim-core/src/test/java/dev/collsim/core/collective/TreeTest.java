package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TreeTest {
    /**
     * NCCL's LL128 tree chunk (enqueue.cc), worked by hand: 576,000 B halved to 72,000 while a
     * channel has fewer than 22.4 chunks (2 nodes of 8: 1 + 1 + 0.8 steps x 64 / 8), then to 36,000
     * while fewer than 5.6, then the 1,920 B grain: 34,560 B. Large messages and other protocols keep
     * one buffer step.
     */
    @ParameterizedTest(name = "{0} {1} B on {3} ranks, {4} nodes: {5} B")
    @CsvSource({"LL128, 4194304, 16, 16, 2, 34560", "LL128, 17179869184, 16, 16, 2, 576000", "SIMPLE, 4194304, 16, 16, 2, 524288",
        "LL, 4194304, 16, 16, 2, 32768", "LL128, 1048576, 1, 4, 1, 71040"})
    void ll128ChunksShrinkUntilTheTreesPipelineFills(Protocol protocol, long bytes, int channels, int ranks, int nodes, long chunk) {
        assertEquals(chunk, TreeAlgorithm.chunkFor(protocol, bytes, channels, ranks, nodes));
    }

    private static final ProtocolCosts COSTS = new ProtocolCosts(Rate.gigabytesPerSecond(20), TimeSpan.ofNanos(500),
            TimeSpan.ofNanos(700));

    /** Four nodes: NCCL's first tree is 0 -> 2 -> {1, 3}; its mirror is 3 -> 1 -> {2, 0}. */
    @Test
    void ncclsTreesOnFourNodes() {
        assertArrayEquals(new int[] {-1, -1, 2}, TreeAlgorithm.btree(4, 0));
        assertArrayEquals(new int[] {0, 1, 3}, TreeAlgorithm.btree(4, 2));
        assertArrayEquals(new int[] {2, -1, -1}, TreeAlgorithm.btree(4, 1));
        assertArrayEquals(new int[] {-1, -1, 1}, TreeAlgorithm.dtree(4, 3));
        assertArrayEquals(new int[] {3, 2, 0}, TreeAlgorithm.dtree(4, 1));
    }

    /** Both trees span every node once from one root, and for even counts a leaf of one is inside the other. */
    @Test
    void bothTreesAreSpanningAndComplementary() {
        for (int n = 1; n <= 130; n++) {
            for (int which = 0; which < 2; which++) {
                int[][] nodes = new int[n][];
                for (int k = 0; k < n; k++) {
                    nodes[k] = new int[] {k};
                }
                int[] parent = new TreeAlgorithm(nodes).parents(which, n, 0);
                int roots = 0;
                for (int k = 0; k < n; k++) {
                    roots += parent[k] < 0 ? 1 : 0;
                    int hops = 0;
                    for (int x = k; parent[x] >= 0; x = parent[x]) {
                        assertTrue(++hops <= n, "cycle through node " + k + " of " + n);
                    }
                    int[] t = which == 0 ? TreeAlgorithm.btree(n, k) : TreeAlgorithm.dtree(n, k);
                    for (int child : new int[] {t[1], t[2]}) {
                        if (child >= 0) {
                            assertEquals(k, parent[child], "child " + child + " of " + k + " in tree " + which + " of " + n);
                        }
                    }
                }
                assertEquals(1, roots, n + " nodes, tree " + which);
            }
            if (n % 2 == 0 && n > 2) {
                for (int k = 0; k < n; k++) {
                    int[] a = TreeAlgorithm.btree(n, k);
                    int[] b = TreeAlgorithm.dtree(n, k);
                    boolean leafInBoth = a[1] < 0 && a[2] < 0 && b[1] < 0 && b[2] < 0;
                    assertTrue(!leafInBoth, "node " + k + " of " + n + " is a leaf in both trees");
                }
            }
        }
    }

    @ParameterizedTest(name = "nodes={0} ppn={1} {2}B ch={3} {4}")
    @CsvSource({"1, 8, 1000, 1, LL", "1, 5, 3000000, 3, SIMPLE", "4, 2, 2000000, 2, SIMPLE", "3, 3, 777777, 4, LL128",
        "8, 1, 9000000, 2, SIMPLE", "5, 2, 64, 2, LL"})
    void treeAllReduceIsCorrect(int nNodes, int ppn, long bytes, int channels, Protocol proto) {
        int n = nNodes * ppn;
        int[][] nodes = nodes(nNodes, ppn);
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, proto, channels);
        Schedule s = new TreeAlgorithm(nodes).schedule(req);
        TestFabrics.Tracked run = TestFabrics.star(n, 40, 0.2).run(s, COSTS, null, TimeSpan.ofMicros(1));
        assertEquals(List.of(), run.tracker().verify());
        long sent = 0;
        for (int r = 0; r < n; r++) {
            sent += s.bytesSentBy(r);
        }
        assertEquals(2L * (n - 1) * bytes, sent, "every edge carries the data up once and down once");
    }

    /**
     * LL forwards a chunk as it arrives. A 32 KiB all_reduce on a chain of 8 (one channel, one LL
     * chunk) moves in 8 pieces of 4 KiB on each of the 14 connections, the reducing group sending at
     * 448 of 640 threads' share of the 20 GB/s channel and the broadcasting one at 192, the root at all.
     * Were every hop to wait for the whole chunk (64 KiB of LL lines), the 7 hops up would take 7 x 65,536 /
     * (20 GB/s x 448 / 640) = 32.8 us and the 6 broadcasts below the root 6 x 65,536 / (20 GB/s x 192 /
     * 640) = 65.5 us; forwarded piece by piece, the chain costs little more than its slowest group's
     * 10.9 us for the chunk and the hops' latencies.
     */
    @Test
    void llForwardsEachPieceOnceItHasArrivedNotTheWholeChunk() {
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, 8, 32768, 0, Protocol.LL, 1);
        Schedule s = TreeAlgorithm.singleNode(8).schedule(req);
        assertEquals(14 * 8, s.transferCount());
        for (int t = 0; t < s.transferCount(); t++) {
            assertEquals(4096, s.bytes(t));
            double share = s.src(t) == 0 ? 1 : s.reduces(t) ? 448.0 / 640 : 192.0 / 640;
            assertEquals(share, s.threadShare(t), 1e-12, "transfer " + t + " from " + s.src(t));
        }
        TestFabrics.Tracked run = TestFabrics.star(8, 400, 0.1).run(s, COSTS, null, TimeSpan.ZERO);
        assertEquals(List.of(), run.tracker().verify());
        double micros = run.result().durationPicos() / 1e6;
        double slowestGroup = 65536 / (20e9 * 192 / 640) * 1e6;
        double storeAndForward = 7 * 65536 / (20e9 * 448 / 640) * 1e6 + 6 * slowestGroup;
        assertTrue(micros > slowestGroup && micros < storeAndForward / 2,
                micros + " us: between " + slowestGroup + " and half of " + storeAndForward);
    }

    /**
     * Across nodes the proxy sends a step once the GPU has written all of it, and posts it once. On
     * 2 nodes of 2 (chains 0-1 and 2-3, node 1's head 2 under node 0's head 0), one LL128 step of 8
     * pieces on one channel: 2's pieces up to 0 each wait for all 8 of 3's pieces up to 2, and all but
     * the first share the first's post; inside a node piece i waits for piece i only and each is posted
     * on its own (a post there costs nothing).
     */
    @Test
    void acrossNodesAStepWaitsForAllItsPiecesAndIsPostedOnce() {
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, 4, 8 * 3840, 0, Protocol.LL128, 1);
        Schedule s = new TreeAlgorithm(nodes(2, 2)).schedule(req);
        int[][] waitsFor = new int[s.transferCount()][s.transferCount()];
        int[] into = new int[s.maxSuccessors()];
        for (int t = 0; t < s.transferCount(); t++) {
            for (int i = 0, n = s.successors(t, into); i < n; i++) {
                if ((into[i] & 1) == 1) {
                    waitsFor[into[i] >>> 1][t] = 1;
                }
            }
        }
        int checked = 0;
        for (int t = 0; t < s.transferCount(); t++) {
            boolean across = s.src(t) / 2 != s.dst(t) / 2;
            boolean firstOfStep = t == 0 || s.src(t - 1) != s.src(t) || s.dst(t - 1) != s.dst(t);
            assertEquals(across && !firstOfStep, s.postedWithPrevious(t), "transfer " + t + ": " + s.src(t) + " -> " + s.dst(t));
            if (s.src(t) == 2 && s.dst(t) == 0) {
                long fromChild = 0;
                for (int u = 0; u < s.transferCount(); u++) {
                    fromChild += s.src(u) == 3 && s.dst(u) == 2 ? waitsFor[t][u] : 0;
                }
                assertEquals(8, fromChild, "2 -> 0 transfer " + t + " waits for every piece from 3");
                checked++;
            }
            if (s.src(t) == 2 && s.dst(t) == 3) {
                long fromParent = 0;
                for (int u = 0; u < s.transferCount(); u++) {
                    fromParent += s.src(u) == 0 && s.dst(u) == 2 ? waitsFor[t][u] : 0;
                }
                assertEquals(1, fromParent, "2 -> 3 transfer " + t + " waits for its own piece from 0");
            }
        }
        assertEquals(8, checked);
    }

    /** The builder is sized by a count made without building. */
    @ParameterizedTest(name = "nodes={0} ppn={1} {2}B ch={3} {4}")
    @CsvSource({"1, 8, 1000, 1, LL", "1, 5, 3000000, 3, SIMPLE", "4, 2, 2000000, 2, SIMPLE", "3, 3, 777777, 4, LL128",
        "8, 1, 9000000, 2, SIMPLE", "5, 2, 64, 2, LL", "16, 8, 50000000, 16, LL128", "7, 3, 123456, 5, LL", "1, 1, 4096, 2, LL"})
    void theSizeCountedUpFrontIsTheSizeBuilt(int nNodes, int ppn, long bytes, int channels, Protocol proto) {
        int n = nNodes * ppn;
        int[][] nodes = nodes(nNodes, ppn);
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, proto, channels);
        TreeAlgorithm tree = new TreeAlgorithm(nodes);
        TestFabrics.assertCounted(tree.size(req), tree.schedule(req));
    }

    /** Ranks numbered node by node. */
    private static int[][] nodes(int nNodes, int ppn) {
        int[][] nodes = new int[nNodes][ppn];
        for (int k = 0; k < nNodes; k++) {
            for (int j = 0; j < ppn; j++) {
                nodes[k][j] = k * ppn + j;
            }
        }
        return nodes;
    }
}
