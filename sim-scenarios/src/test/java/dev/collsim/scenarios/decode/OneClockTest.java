package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.units.Rate;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The decode step on one clock: where no collectives can meet on a link, the timeline of alone
 * times the step takes is the one-clock simulation's to the picosecond; where they can, the step
 * runs on one clock and says so.
 */
class OneClockTest {
    private static DecodeSpec spec(String model, String system, int tp, int pp, int ep, int dp, int batch, Precision dtype, Overlap overlap) {
        return new DecodeSpec(ModelConfig.load(model), DecodeSystem.preset(system), OptionalInt.empty(), tp, pp, ep, dp, batch, 1024, dtype,
                AllReduceKind.AUTO, overlap, true);
    }

    /** Every kernel's start and end, in the order of the result. */
    private static List<String> spans(DecodeResult r) {
        List<String> out = new ArrayList<>();
        r.timeline().beforeLayers().forEach(s -> out.add(s.name() + " " + s.start().ms() + " " + s.end().ms()));
        r.layers().forEach(l -> l.spans().forEach(s -> out.add(l.index() + " " + s.name() + " " + s.start().ms() + " " + s.end().ms())));
        r.timeline().afterLayers().forEach(s -> out.add(s.name() + " " + s.start().ms() + " " + s.end().ms()));
        return out;
    }

    private static void assertShortcutExact(DecodeSpec spec) {
        DecodeResult shortcut = DecodeStep.run(spec);
        assertEquals("", shortcut.setup().contention(), "no collectives meet on a link");
        DecodeResult oneClock = DecodeStep.onOneClock(spec);
        assertEquals(spans(oneClock), spans(shortcut));
        assertEquals(oneClock.itl().ms(), shortcut.itl().ms());
    }

    @Test
    void tensorAndPipelineGroupsInOneNode() {
        assertShortcutExact(spec("llama-3-8b", "hgx-h100", 4, 2, 1, 1, 8, Precision.BF16, Overlap.NONE));
    }

    @Test
    void pipelineStagesOnTwoNodesAndReplicas() {
        assertShortcutExact(spec("llama-3-8b", "hgx-h100", 8, 2, 1, 2, 8, Precision.BF16, Overlap.NONE));
    }

    @Test
    void expertsAcrossReplicasInOneNode() {
        assertShortcutExact(spec("mixtral-8x7b", "hgx-h100", 2, 1, 8, 4, 8, Precision.BF16, Overlap.NONE));
    }

    private static DecodeSpec deepSeek(double oversubscription, Overlap overlap) {
        return deepSeek(null, oversubscription, overlap, 64, 4096);
    }

    /** The experts' tokens sent all-to-all by NCCL, simulated on the fabric. */
    private static DecodeSpec deepSeek(Rate nic, double oversubscription, Overlap overlap, int batch, int context) {
        return gathered(nic, oversubscription, overlap, batch, context).withExchange(ExpertParallel.Exchange.ALLTOALL);
    }

    /** The experts' tokens gathered to every EP rank and reduce-scattered back, the engines' default. */
    private static DecodeSpec gathered(Rate nic, double oversubscription, Overlap overlap, int batch, int context) {
        WhatIf knobs = new WhatIf(nic, 0, oversubscription, 1, true, java.util.Map.of(), java.util.Map.of(), List.of());
        return new DecodeSpec(ModelConfig.load("deepseek-v3"), new DecodeSystem.Preset(SystemPreset.byName("hgx-h100"), null, OptionalInt.empty(),
                knobs), OptionalInt.empty(), 8, 1, 16, 2, batch, context, Precision.FP8, AllReduceKind.AUTO, overlap, true);
    }

    /** The summed time of the step's collectives whose names start with one of {@code names}. */
    private static double commMs(DecodeResult r, String... names) {
        double sum = 0;
        for (DecodeResult.Layer l : r.layers()) {
            for (DecodeResult.Span s : l.spans()) {
                if (java.util.Arrays.stream(names).anyMatch(s.name()::startsWith)) {
                    sum += s.end().ms() - s.start().ms();
                }
            }
        }
        return sum;
    }

    /**
     * DeepSeek-V3 with two replicas of TP 8 on two HGX H100 nodes and EP 16 over both: the
     * all-to-alls change rails through the spine and slow on a 4:1 oversubscribed one; the TP
     * all-reduces stay in their nodes and take exactly what they took.
     */
    @Test
    void anOversubscribedSpineSlowsTheExpertsAcrossNodesAndNotTheTensorGroups() {
        DecodeResult open = DecodeStep.run(deepSeek(1, Overlap.NONE));
        DecodeResult narrow = DecodeStep.run(deepSeek(4, Overlap.NONE));
        double ep = commMs(open, "dispatch", "combine");
        double epNarrow = commMs(narrow, "dispatch", "combine");
        assertTrue(epNarrow > 1.1 * ep, "EP all-to-alls: " + ep + " ms non-blocking, " + epNarrow + " ms at 4:1");
        assertEquals(commMs(open, "attn_all_reduce", "moe_all_reduce"), commMs(narrow, "attn_all_reduce", "moe_all_reduce"), 1e-9);
        assertTrue(narrow.itl().ms() > open.itl().ms());
    }

    /**
     * The engines' default exchange gathers and reduce-scatters as NCCL's rings, whose steps between the nodes go NIC to NIC
     * on one rail: the oversubscribed spine carries none of it, so the exchange takes exactly what it took.
     */
    @Test
    void theGatheredExchangeStaysOnItsRails() {
        double open = commMs(DecodeStep.run(gathered(null, 1, Overlap.NONE, 64, 4096)), "dispatch", "combine");
        double narrow = commMs(DecodeStep.run(gathered(null, 4, Overlap.NONE, 64, 4096)), "dispatch", "combine");
        assertTrue(open > 0);
        assertEquals(open, narrow, 1e-9);
    }

    /**
     * Under two-batch overlap each micro-batch's collectives have a stream of their own: the two
     * micro-batches' all-to-alls are in flight at once and, on 100 Gb/s NICs that their network
     * transfers keep busy, share them and take longer than alone; the step says it ran on one clock.
     * (On the 400 Gb/s NICs of the preset their transfers through the NICs, at these sizes, end
     * before the other micro-batch's begin.)
     */
    @Test
    void twoMicroBatchesAllToAllsShareTheNics() {
        DecodeResult together = DecodeStep.run(deepSeek(Rate.parse("100Gb/s"), 1, Overlap.TWO_BATCH, 256, 1024));
        DecodeResult alone = DecodeStep.estimate(deepSeek(Rate.parse("100Gb/s"), 1, Overlap.TWO_BATCH, 256, 1024), new CommModel.Cache());
        assertFalse(together.setup().contention().isEmpty());
        assertTrue(alone.setup().contention().isEmpty());
        assertTrue(commMs(together, "dispatch", "combine") > commMs(alone, "dispatch", "combine"),
                commMs(together, "dispatch", "combine") + " ms together, " + commMs(alone, "dispatch", "combine") + " ms alone");
        DecodeResult.LinkLoad nic = together.timeline().linkLoads().stream().filter(x -> x.link().equals("n0.nic0 -> leaf0")).findFirst().orElseThrow();
        boolean sharedNic = false;
        for (DecodeResult.Layer l : together.layers()) {
            for (DecodeResult.Span a : l.spans()) {
                for (DecodeResult.Span b : l.spans()) {
                    if (a.microBatch() == 0 && b.microBatch() == 1 && isAllToAll(a) && isAllToAll(b)) {
                        double from = Math.max(a.start().ms(), b.start().ms());
                        double to = Math.min(a.end().ms(), b.end().ms());
                        sharedNic |= nic.steps().stream().anyMatch(step -> step[0] >= from && step[0] < to && step[1] > 0);
                    }
                }
            }
        }
        assertTrue(sharedNic, "GPU 0's NIC carries traffic while all-to-alls of both micro-batches run");
        assertTrue(nic.steps().stream().allMatch(step -> step[1] <= 100 + 1e-9), "never above the NIC's rate");
        assertTrue(alone.timeline().linkLoads().isEmpty(), "only a step on one clock has link loads");
    }

    private static boolean isAllToAll(DecodeResult.Span s) {
        return s.name().equals("dispatch") || s.name().equals("combine");
    }
}
