package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.Link;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For every operation, protocol, several rank counts, sizes (tiny, unaligned, several loops) and
 * channel counts: every rank ends with exactly the right contributions for every byte, no
 * contribution is reduced twice, no data is read before it arrives, the bytes the links carried are
 * the bytes the ranks sent, no link ever runs above its rate, and the run terminates.
 */
class RingInvariantsTest {
    private static final ProtocolCosts COSTS = new ProtocolCosts(Rate.gigabytesPerSecond(20), TimeSpan.ofNanos(500),
            TimeSpan.ofNanos(700));

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        long[] sizes = {8, 1000, 96 * 1024 + 48, 3L << 20, (9L << 20) + 4096};
        for (CollectiveOp op : CollectiveOp.values()) {
            if (op.pointToPoint()) {
                continue;
            }
            for (Protocol p : Protocol.values()) {
                for (int n : new int[] {2, 3, 5, 8}) {
                    for (long size : sizes) {
                        for (int channels : new int[] {1, 3}) {
                            long bytes = op.sizeIsTotal() ? size / n * n : size;
                            if (bytes > 0) {
                                out.add(Arguments.of(op, p, n, bytes, channels));
                            }
                        }
                    }
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} n={2} {3}B ch={4}")
    @MethodSource("cases")
    void ringIsCorrectAndConservesBytes(CollectiveOp op, Protocol proto, int n, long bytes, int channels) {
        CollectiveRequest req = new CollectiveRequest(op, n, bytes, n - 1, proto, channels);
        Schedule s = RingAlgorithm.inRankOrder(n).schedule(req);
        TestFabrics f = TestFabrics.star(n, 40, 0.2);
        TestFabrics.Tracked run = f.run(s, COSTS, null, TimeSpan.ofMicros(1));
        FlowNetwork net = run.network();

        assertEquals(List.of(), run.tracker().verify());
        assertTrue(run.result().durationPicos() > 0);

        long sent = 0;
        for (int rank = 0; rank < n; rank++) {
            sent += s.bytesSentBy(rank);
        }
        long expected = switch (op) {
            case ALL_REDUCE -> 2L * (n - 1) * bytes;
            case ALL_GATHER, REDUCE_SCATTER, BROADCAST, REDUCE -> (long) (n - 1) * bytes;
            case ALL_TO_ALL, SEND_RECV -> throw new IllegalArgumentException("not a ring operation");
        };
        assertEquals(expected, sent, "data bytes sent by all ranks");

        double wire = 1 / proto.wireEfficiency();
        long up = 0;
        long down = 0;
        for (Link l : f.fabric.links()) {
            if (f.fabric.device(l.from()).kind() == dev.collsim.core.fabric.DeviceKind.GPU) {
                up += net.bytesCarried(l.id());
            } else {
                down += net.bytesCarried(l.id());
            }
        }
        assertEquals(up, down, "bytes that left GPUs equal bytes that reached GPUs");
        assertEquals(sent * wire, up, s.transferCount() + 1.0, "wire bytes on GPU links");
        assertTrue(net.maxUtilisation() <= 1 + 1e-9);
    }

    /** The builder is sized by a count made without building. */
    @ParameterizedTest(name = "{0} {1} n={2} {3}B ch={4}")
    @MethodSource("cases")
    void theSizeCountedUpFrontIsTheSizeBuilt(CollectiveOp op, Protocol proto, int n, long bytes, int channels) {
        CollectiveRequest req = new CollectiveRequest(op, n, bytes, n - 1, proto, channels);
        RingAlgorithm ring = RingAlgorithm.inRankOrder(n);
        TestFabrics.assertCounted(ring.size(req), ring.schedule(req));
    }
}
