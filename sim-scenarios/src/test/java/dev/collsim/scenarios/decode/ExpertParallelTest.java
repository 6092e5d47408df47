package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ExpertParallelTest {
    private static DecodeSpec deepseek(ExpertParallel load) {
        return new DecodeSpec(ModelConfig.load("deepseek-v3"), DecodeSystem.preset("gb200-nvl72"), OptionalInt.empty(), 1, 1, 32, 32, 64,
                4096, Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true, ServingEngine.SGLANG, null, null, Speculation.NONE, load);
    }

    /** Zipf 2 over four experts, top-2: the first's 2 x 1 / (1 + 1/4 + 1/9 + 1/16) = 1.405 passes 1, so it is held at 1. */
    @Test
    void pickChancesSumToTopKAndNeverPassOne() {
        assertArrayEquals(new double[] {0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25}, ExpertParallel.pickChances(8, 2, 0), 1e-15);
        double[] p = ExpertParallel.pickChances(4, 2, 2);
        double rest = 0.25 + 1 / 9.0 + 1 / 16.0;
        assertArrayEquals(new double[] {1, 0.25 / rest, 1 / 9.0 / rest, 1 / 16.0 / rest}, p, 1e-12);
    }

    /** Every expert alike, placed by id: ceil(E / ep) experts on the busiest rank, their share of the picks, as before. */
    @Test
    void uniformRoutingIsTheEvenSplit() {
        ExpertParallel.Rank r = ExpertParallel.DEFAULT.busiest(256, 8, 72);
        assertEquals(4, r.pickChance().length);
        assertEquals(4.0 / 256, r.share(), 1e-15);
        assertEquals(4 * (1 - Math.pow(1 - 8.0 / 256, 500)), r.active(500), 1e-9);
        assertEquals(4, ExpertParallel.DEFAULT.slotsPerRank(256, 72));
    }

    /**
     * EPLB worked by hand: four experts, top-1, Zipf 2 (chances p0..p3 = 1, 1/4, 1/9, 1/16 over their sum), two ranks and
     * two redundant experts. Both extra slots go to expert 0 (p0 / 2 = 0.351 still tops p1 = 0.176), so six slots: three
     * thirds of expert 0, then experts 1, 2, 3. Packed heaviest first onto the least-loaded rank with room (ties to the
     * first): rank 0 takes p0/3, rank 1 p0/3, rank 0 p0/3, rank 1 p1 and p2 (now full), rank 0 p3. Rank 0's 2/3 p0 + p3 =
     * 0.512 is the busiest.
     */
    @Test
    void eplbReplicatesTheHottestAndPacksHeaviestFirst() {
        double sum = 1 + 0.25 + 1 / 9.0 + 1 / 16.0;
        double p0 = 1 / sum;
        double p3 = 1 / 16.0 / sum;
        ExpertParallel eplb = new ExpertParallel(ExpertParallel.Exchange.ALLTOALL, 2, true, 2);
        ExpertParallel.Rank r = eplb.busiest(4, 1, 2);
        assertArrayEquals(new double[] {p0 / 3, p0 / 3, p3}, r.pickChance(), 1e-12);
        assertEquals(2 * p0 / 3 + p3, r.share(), 1e-12);
        assertEquals(3, eplb.slotsPerRank(4, 2));
        // Without EPLB the rank holding expert 0 takes at least p0 = 0.702 of the picks.
        assertTrue(new ExpertParallel(ExpertParallel.Exchange.ALLTOALL, 2, false, 0).busiest(4, 1, 2).share() >= p0);
    }

    @Test
    void skewSlowsTheStepAndEplbWinsItBackAtTheCostOfItsSlots() {
        DecodeResult even = DecodeStep.run(deepseek(ExpertParallel.parse("alltoall", 0, "off")));
        DecodeResult skewed = DecodeStep.run(deepseek(ExpertParallel.parse("alltoall", 0.6, "off")));
        DecodeResult balanced = DecodeStep.run(deepseek(ExpertParallel.parse("alltoall", 0.6, "32")));
        assertEquals(1, even.layout().expertImbalance(), 1e-12);
        assertTrue(skewed.layout().expertImbalance() > 1.3, "imbalance " + skewed.layout().expertImbalance());
        assertTrue(balanced.layout().expertImbalance() < 1.05, "imbalance " + balanced.layout().expertImbalance());
        assertTrue(skewed.itl().ms() > even.itl().ms() * 1.02, skewed.itl() + " vs " + even.itl());
        assertTrue(balanced.itl().ms() < skewed.itl().ms(), balanced.itl() + " vs " + skewed.itl());
        // EPLB's 288 slots put 9 experts on every rank where 256 put 8: one more expert a MoE layer (58 of them), each
        // 3 x 7,168 x 2,048 parameters in FP8.
        ModelConfig m = ModelConfig.load("deepseek-v3");
        double expert = 3.0 * 7168 * 2048 * Precision.FP8.bytesPerParam();
        assertEquals(58 * expert, balanced.memory().weightsBytes() - even.memory().weightsBytes(), 1);
        assertEquals(58, java.util.stream.IntStream.range(0, m.layers()).filter(m::isMoe).count());
    }

    /**
     * The engines' default exchange, DeepSeek-V3 on TP 2 x DP 4 = EP 8 of an HGX H200, batch 16 a replica: the dispatch
     * all-gathers the 4 replicas' 64 tokens of 7,168 BF16 values (917,504 bytes on every rank, 7/8 of them sent by each
     * GPU in NCCL's ring), every rank runs its 32 whole experts on all 64, the combine reduce-scatters the 64 tokens'
     * outputs, and the TP all-reduce sums the replica's pair. With one replica (TP 8 = EP 8) nothing is exchanged: the
     * ranks run their experts on the replica's tokens and the all-reduce sums them. All-to-all, the dispatch is 16 / 2
     * tokens a rank, 8 top-k copies each in FP8 (57,344 bytes a rank).
     */
    @Test
    void theEnginesGatherAndReduceScatterOverTheReplicas() {
        ModelConfig m = ModelConfig.load("deepseek-v3");
        DecodeSpec gathered = new DecodeSpec(m, DecodeSystem.preset("hgx-h200"), OptionalInt.empty(), 2, 1, 8, 4, 16, 4096, Precision.FP8,
                AllReduceKind.AUTO, Overlap.NONE, true);
        assertTrue(gathered.expertsGathered());
        assertFalse(gathered.expertsAllToAll());
        List<DecodeResult.Span> layer = DecodeStep.run(gathered).layers().get(3).spans();
        List<String> names = layer.stream().map(DecodeResult.Span::name).toList();
        assertTrue(names.containsAll(List.of("dispatch", "experts_gate_up", "combine", "moe_all_reduce")), names.toString());
        assertEquals(917_504L / 8 * 7, span(layer, "dispatch").bytes());
        assertEquals(917_504L / 8 * 7, span(layer, "combine").bytes());

        DecodeSpec oneReplica = new DecodeSpec(m, DecodeSystem.preset("hgx-h200"), OptionalInt.empty(), 8, 1, 8, 1, 16, 4096, Precision.FP8,
                AllReduceKind.AUTO, Overlap.NONE, true);
        List<String> plain = DecodeStep.run(oneReplica).layers().get(3).spans().stream().map(DecodeResult.Span::name).toList();
        assertFalse(plain.contains("dispatch") || plain.contains("combine"), plain.toString());
        assertTrue(plain.contains("moe_all_reduce"), plain.toString());

        DecodeSpec sent = gathered.withExchange(ExpertParallel.Exchange.ALLTOALL);
        assertTrue(sent.expertsAllToAll());
        List<DecodeResult.Span> a2a = DecodeStep.run(sent).layers().get(3).spans();
        assertEquals(16 / 2 * 8 * 7168L / 8 * 7, span(a2a, "dispatch").bytes());
        assertTrue(a2a.stream().anyMatch(x -> x.name().equals("moe_all_gather")));
    }

    private static DecodeResult.Span span(List<DecodeResult.Span> spans, String name) {
        return spans.stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void refusesWhatTheEnginesRefuse() {
        assertTrue(assertThrows(InputException.class, () -> deepseek(ExpertParallel.parse("alltoall", 0, "20"))).getMessage()
                .contains("make 276 slots, which do not split evenly over --ep 32"));
        assertTrue(assertThrows(InputException.class, () -> ExpertParallel.parse("alltoall", -0.5, "off")).getMessage()
                .contains("--expert-skew -0.5: expected a Zipf exponent from 0"));
        assertTrue(assertThrows(InputException.class, () -> ExpertParallel.parse("alltoall", 0, "many")).getMessage()
                .contains("--eplb many: expected off or a count of redundant experts"));
    }
}
