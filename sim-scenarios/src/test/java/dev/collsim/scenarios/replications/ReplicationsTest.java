package dev.collsim.scenarios.replications;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.decode.AllReduceKind;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.stochastic.Variability;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ReplicationsTest {
    private static final DecodeSpec LLAMA = new DecodeSpec(ModelConfig.load("llama-3-8b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 8, 1, 1, 9,
            16, 2048, Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true);

    @Test
    void theSameSeedGivesTheSameRunAndAnotherSeedAnother() {
        Variability.Spec jitter = new Variability.Spec(0.2, 0.2, 1, -1);
        Replications.Result a = Replications.decode(LLAMA, jitter, 7, 20);
        assertEquals(a, Replications.decode(LLAMA, jitter, 7, 20));
        assertNotEquals(a.quantities().get("itl_ms").mean(), Replications.decode(LLAMA, jitter, 8, 20).quantities().get("itl_ms").mean());
    }

    /** The 95 % confidence interval of the mean narrows about as 1/sqrt(R). */
    @Test
    void theConfidenceIntervalNarrowsAsReplicationsGrow() {
        Variability.Spec jitter = new Variability.Spec(0.5, 0, 1, -1);
        double few = Replications.decode(LLAMA, jitter, 3, 10).quantities().get("itl_ms").ci95HalfWidth();
        double many = Replications.decode(LLAMA, jitter, 3, 160).quantities().get("itl_ms").ci95HalfWidth();
        assertTrue(few > 0 && many < few / 2, few + " with 10, " + many + " with 160");
    }

    /**
     * A 1.5x straggler drawn among 72 GPUs lands on the followed replica's 8 about one time in nine:
     * the median inter-token latency does not see it, the 99th percentile does.
     */
    @Test
    void aStragglerShowsUpInTheTail() {
        Summary itl = Replications.decode(LLAMA, new Variability.Spec(0, 0, 1.5, -1), 11, 100).quantities().get("itl_ms");
        Summary calm = Replications.decode(LLAMA, Variability.Spec.NONE, 11, 5).quantities().get("itl_ms");
        assertEquals(calm.p50(), itl.p50(), 1e-9);
        assertTrue(itl.p99() > 1.15 * itl.p50(), itl.p99() + " vs " + itl.p50());
        Summary named = Replications.decode(LLAMA, new Variability.Spec(0, 0, 1.5, 3), 11, 3).quantities().get("itl_ms");
        assertTrue(named.p50() > 1.15 * calm.p50(), "GPU 3 is in replica 0: every replication is slow");
    }

    @Test
    void summaryStatistics() {
        Summary s = Summary.of(new double[] {4, 1, 3, 2, 5});
        assertEquals(3, s.mean(), 1e-12);
        assertEquals(3, s.p50(), 0);
        assertEquals(5, s.p99(), 0);
        // t(0.975, 4) = 2.776; sd = sqrt(2.5); half-width = 2.776 * sqrt(2.5 / 5)
        assertEquals(2.7764 * Math.sqrt(0.5), s.ci95HalfWidth(), 1e-3);
    }
}
