package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The foundation's invariants on random layouts (a fixed seed): rings in random rank orders, a
 * different order per channel, random operations, protocols, sizes and link rates. Every rank ends
 * with exactly the right contributions, nothing is read before it arrives, no link runs above its rate.
 */
class RandomLayoutPropertiesTest {
    private static final int CASES = 150;

    @Test
    void ringsInRandomOrdersKeepTheInvariants() {
        Random r = new Random(20261129);
        CollectiveOp[] ops = {CollectiveOp.ALL_REDUCE, CollectiveOp.ALL_GATHER, CollectiveOp.REDUCE_SCATTER, CollectiveOp.BROADCAST,
            CollectiveOp.REDUCE};
        for (int i = 0; i < CASES; i++) {
            int n = 2 + r.nextInt(9);
            int channels = 1 + r.nextInt(4);
            int[][] orders = new int[1 + r.nextInt(channels)][];
            for (int c = 0; c < orders.length; c++) {
                orders[c] = shuffled(n, r);
            }
            CollectiveOp op = ops[r.nextInt(ops.length)];
            Protocol proto = Protocol.values()[r.nextInt(Protocol.values().length)];
            long size = 1 + (long) (Math.pow(r.nextDouble(), 4) * (16L << 20));
            long bytes = op.sizeIsTotal() ? Math.max(n, size / n * n) : size;
            CollectiveRequest req = new CollectiveRequest(op, n, bytes, r.nextInt(n), proto, channels);
            TestFabrics f = TestFabrics.star(n, 1 + r.nextDouble() * 400, r.nextDouble());
            ProtocolCosts costs = new ProtocolCosts(Rate.gigabytesPerSecond(1 + r.nextDouble() * 100), TimeSpan.ofNanos(r.nextInt(2000)),
                    TimeSpan.ofNanos(r.nextInt(3000)));
            TestFabrics.Tracked run = f.run(new RingAlgorithm(orders).schedule(req), costs, null, TimeSpan.ofMicros(1));
            String what = "case " + i + ": " + op + " " + proto + " n=" + n + " " + bytes + " B, " + channels + " channels";
            assertEquals(java.util.List.of(), run.tracker().verify(), what);
            assertTrue(run.network().maxUtilisation() <= 1 + 1e-9, what);
            assertTrue(run.result().durationPicos() > 0, what);
        }
    }

    private static int[] shuffled(int n, Random r) {
        int[] a = java.util.stream.IntStream.range(0, n).toArray();
        for (int k = n - 1; k > 0; k--) {
            int j = r.nextInt(k + 1);
            int t = a[k];
            a[k] = a[j];
            a[j] = t;
        }
        return a;
    }
}
