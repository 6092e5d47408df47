package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PAT: every block reaches every rank (all_gather) or its owner with every contribution once (reduce_scatter). */
class PatTest {
    private static final ProtocolCosts COSTS = new ProtocolCosts(Rate.gigabytesPerSecond(20), TimeSpan.ofNanos(500),
            TimeSpan.ofNanos(700));

    @ParameterizedTest(name = "{0} n={1} {2}B ch={3}")
    @CsvSource({"ALL_GATHER, 2, 64, 1", "ALL_GATHER, 5, 1000000, 2", "ALL_GATHER, 10, 33554400, 4", "ALL_GATHER, 16, 1048576, 1",
        "REDUCE_SCATTER, 2, 64, 1", "REDUCE_SCATTER, 7, 700000, 3", "REDUCE_SCATTER, 10, 33554400, 4", "REDUCE_SCATTER, 16, 4194304, 2"})
    void patIsCorrectAndMovesRingsBytes(CollectiveOp op, int n, long size, int channels) {
        long bytes = size / n * n;
        CollectiveRequest req = new CollectiveRequest(op, n, bytes, 0, Protocol.SIMPLE, channels);
        Schedule s = new PatAlgorithm().schedule(req);
        TestFabrics.Tracked run = TestFabrics.star(n, 40, 0.2).run(s, COSTS, null, TimeSpan.ofMicros(1));
        assertEquals(List.of(), run.tracker().verify());
        long sent = 0;
        for (int r = 0; r < n; r++) {
            sent += s.bytesSentBy(r);
        }
        assertEquals((long) (n - 1) * bytes, sent, "every block crosses n-1 edges, as in a ring");
    }
}
