package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import org.junit.jupiter.api.Test;

/**
 * The recipe of docs/architecture.md, done once in test code: a new algorithm is a class that
 * returns a schedule, and the runner, the flow model and the invariant checks take it as they are.
 * (Naming it for {@code --algo} is one entry in {@code AlgorithmId}; letting NCCL's tuner pick it,
 * its estimate in {@code NcclTuner}: at most three main files.)
 */
class ToyAlgorithmTest {
    /** A direct all_gather: every rank writes its own part straight into every peer, all at once. */
    static final class DirectAllGather implements CollectiveAlgorithm {
        @Override
        public String name() {
            return "Direct";
        }

        @Override
        public Schedule schedule(CollectiveRequest req) {
            ScheduleBuilder b = new ScheduleBuilder(req, name());
            int n = req.nRanks();
            long part = req.bytes() / n;
            for (int owner = 0; owner < n; owner++) {
                int piece = b.piece(owner * part, part, owner);
                for (int d = 1; d < n; d++) {
                    b.transfer(0, 0, owner, (owner + d) % n, piece, false);
                }
            }
            return b.build();
        }
    }

    /**
     * Four GPUs on a switch, 50 GB/s and 0.25 us a hop; 1,200,000 B in all, 300,000 B a rank. Each
     * GPU's link carries its three sends at once (and its three receives the other way), so each
     * flow gets a third of 50 GB/s: 300,000 B / 16.67 GB/s = 18 us. With launch 5, send overhead 1,
     * notify 2 and two hops 0.5: 26.5 us; and every rank ends with every part.
     */
    @Test
    void aToyAlgorithmRunsOnTheSameRunnerAndIsChecked() {
        TestFabrics four = TestFabrics.star(4, 50, 0.25);
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_GATHER, 4, 1_200_000, 0, Protocol.SIMPLE, 1);
        Schedule s = new DirectAllGather().schedule(req);
        assertEquals(12, s.transferCount());
        ProtocolCosts costs = new ProtocolCosts(Rate.gigabytesPerSecond(100), TimeSpan.ofMicros(1), TimeSpan.ofMicros(2));
        TestFabrics.Tracked run = four.run(s, costs, null, TimeSpan.ofMicros(5));
        assertTrue(run.tracker().verify().isEmpty(), run.tracker().verify().toString());
        assertEquals(26_500_000L, run.result().durationPicos(), 1);
    }
}
