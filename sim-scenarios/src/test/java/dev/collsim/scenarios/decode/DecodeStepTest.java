package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import org.junit.jupiter.api.Test;

class DecodeStepTest {
    private static DecodeSpec spec(String model, String system, int tp, int batch, Overlap overlap) {
        return new DecodeSpec(ModelConfig.load(model), system, null, null, null, null, tp, 1, 1, 1, batch, 4096, Precision.BF16,
                AllReduceKind.AUTO, overlap, true);
    }

    /**
     * Batch-1 decode streams the weights: the step takes at least their bytes over HBM's peak and at
     * most over the lowest efficiency a kernel reaches, plus every kernel's floor.
     */
    @Test
    void batchOneDecodeIsBoundByReadingTheWeights() {
        DecodeResult r = DecodeStep.run(spec("llama-3-8b", "hgx-h100", 1, 1, Overlap.NONE));
        double bytes = r.weightsBytesPerGpu() + r.kvBytesPerGpu();
        double peak = bytes / 3.35e12 * 1e3;
        int kernels = r.layers().stream().mapToInt(l -> l.spans().size()).sum() + r.beforeLayers().size() + r.afterLayers().size();
        assertEquals(kernels, r.kernelsPerStep());
        assertEquals(kernels * (KernelCosts.GRAPH_GAP_US + KernelCosts.FIXED_US) / 1e3, r.kernelFloorMs(), 1e-9);
        assertTrue(r.itlMs() > peak + r.kernelFloorMs(), r.itlMs() + " ms");
        assertTrue(r.itlMs() < peak / KernelCosts.ATTENTION_MEMORY + r.kernelFloorMs() + r.hostExposedMs() + 0.01, r.itlMs() + " ms");
        assertEquals(0, r.commMs(), 0, "one GPU has nothing to reduce");
    }

    /** Two all-reduces a layer under TP, simulated on the system: their terms add up, and NVLink beats PCIe. */
    @Test
    void tensorParallelAllReducesAreSimulatedOnTheFabric() {
        DecodeResult hgx = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.NONE));
        long reduces = hgx.layers().get(0).spans().stream().filter(s -> s.kind().equals("comm")).count();
        assertEquals(2, reduces);
        assertEquals(hgx.commMs(), hgx.commBandwidthTermMs() + hgx.commLatencyTermMs(), 1e-9);
        assertEquals(hgx.commMs(), hgx.exposedCommMs(), 1e-6, "one stream: every collective is exposed");
        assertEquals(hgx.itlMs(), hgx.computeMs() + hgx.commMs(), 1e-6);
        assertTrue(hgx.warnings().isEmpty(), hgx.warnings().toString());
        DecodeResult pcie = DecodeStep.run(new DecodeSpec(ModelConfig.load("llama-3-8b"), "pcie-l40s-8x", null, null, null, null, 8, 1, 1, 1, 32,
                4096, Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true));
        assertTrue(pcie.warnings().get(0).contains("PCIe and a CPU socket link"), pcie.warnings().toString());
        DecodeResult nvlink8b = DecodeStep.run(spec("llama-3-8b", "hgx-h100", 8, 32, Overlap.NONE));
        assertTrue(pcie.commMs() > 3 * nvlink8b.commMs(), pcie.commMs() + " ms on PCIe, " + nvlink8b.commMs() + " on NVLink");
    }

    /**
     * Two micro-batches hide most of the collectives under the other's compute; on a memory-bound
     * dense model each micro-batch reads the weights again, so the step itself gets longer.
     */
    @Test
    void twoBatchOverlapHidesCommunicationButRereadsWeights() {
        DecodeResult none = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.NONE));
        DecodeResult two = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.TWO_BATCH));
        assertTrue(two.exposedCommMs() < 0.2 * none.exposedCommMs(), two.exposedCommMs() + " vs " + none.exposedCommMs());
        assertTrue(two.computeMs() > 1.5 * none.computeMs());
        assertEquals(none.weightsBytesPerGpu(), two.weightsBytesPerGpu(), 0);
        assertEquals(2, two.layers().get(0).spans().stream().filter(s -> s.name().equals("attn_all_reduce")).count());
    }

    /** A fused GEMM and all-reduce overlaps tiles: less exposed than on one stream, and a collective takes SMs from the GEMM. */
    @Test
    void fusedOverlapRunsTheCollectiveUnderTheGemm() {
        DecodeResult none = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.NONE));
        DecodeResult fused = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.FUSED));
        assertEquals(none.commBytesPerGpu(), fused.commBytesPerGpu(), none.commBytesPerGpu() * 0.01, "the tiles run the same kernel");
        assertTrue(fused.exposedCommMs() < none.exposedCommMs(), fused.exposedCommMs() + " vs " + none.exposedCommMs());
        assertTrue(fused.computeMs() > none.computeMs(), "the GEMM tiles share SMs with the collective");
    }

    /** On an MoE model over 8 expert-parallel GPUs, one micro-batch's dispatch and combine run under the other's experts. */
    @Test
    void twoBatchOverlapHidesTheExpertAllToAlls() {
        DecodeSpec none = new DecodeSpec(ModelConfig.load("mixtral-8x7b"), "hgx-h100", null, null, null, null, 1, 1, 8, 8, 64, 4096,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true);
        DecodeSpec two = new DecodeSpec(none.model(), "hgx-h100", null, null, null, null, 1, 1, 8, 8, 64, 4096, Precision.BF16,
                AllReduceKind.AUTO, Overlap.TWO_BATCH, true);
        DecodeResult a = DecodeStep.run(none);
        DecodeResult b = DecodeStep.run(two);
        assertTrue(b.exposedCommMs() < 0.2 * a.exposedCommMs(), b.exposedCommMs() + " vs " + a.exposedCommMs());
        assertTimelineHolds(b);
    }

    /** The streams' rules, checked on every kernel of a schedule: one kernel at a time per stream, each after what it needs. */
    @Test
    void everyTimelineKeepsTheStreamRules() {
        for (Overlap o : Overlap.values()) {
            assertTimelineHolds(DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, o)));
        }
    }

    private static void assertTimelineHolds(DecodeResult r) {
        java.util.List<DecodeResult.Span> all = new java.util.ArrayList<>(r.beforeLayers());
        r.layers().forEach(l -> all.addAll(l.spans()));
        all.addAll(r.afterLayers());
        for (int stream = 0; stream < 2; stream++) {
            int s = stream;
            var spans = all.stream().filter(x -> x.stream() == s).sorted(java.util.Comparator.comparingDouble(DecodeResult.Span::startMs)).toList();
            for (int i = 1; i < spans.size(); i++) {
                assertTrue(spans.get(i).startMs() >= spans.get(i - 1).endMs() - 1e-12, "stream " + s + " overlaps at " + spans.get(i));
            }
        }
        // Within a micro-batch, a layer starts after the one before it ends its last kernel of that micro-batch.
        for (int l = 1; l < r.layers().size(); l++) {
            for (int b = 0; b < 2; b++) {
                int mb = b;
                double prevEnd = r.layers().get(l - 1).spans().stream().filter(x -> x.microBatch() == mb)
                        .mapToDouble(DecodeResult.Span::endMs).max().orElse(0);
                double start = r.layers().get(l).spans().stream().filter(x -> x.microBatch() == mb)
                        .mapToDouble(DecodeResult.Span::startMs).min().orElse(Double.MAX_VALUE);
                assertTrue(start >= prevEnd - 1e-12, "layer " + l + " micro-batch " + b + " starts before the last ends");
            }
        }
    }

    @Test
    void expertParallelMoeDispatchesAndCombines() {
        DecodeResult r = DecodeStep.run(new DecodeSpec(ModelConfig.load("deepseek-v3"), "gb200-nvl72", null, null, null, null, 1, 1, 72, 72, 64, 4096,
                Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true));
        assertFalse(r.layers().get(2).moe());
        var moe = r.layers().get(3).spans().stream().map(DecodeResult.Span::name).toList();
        assertTrue(moe.containsAll(java.util.List.of("router", "dispatch", "experts", "shared_experts", "combine")), moe.toString());
        assertEquals(64 * 72 / (r.itlMs() / 1000), r.tokensPerS(), 1e-6);
        assertEquals(r.tokensPerS() / 72, r.tokensPerSPerGpu(), 1e-9);
    }

    @Test
    void pipelineStagesSendActivationsAndSplitTheWeights() {
        DecodeSpec one = spec("llama-3-70b", "hgx-h100", 4, 8, Overlap.NONE);
        DecodeSpec two = new DecodeSpec(one.model(), "hgx-h100", null, null, null, null, 4, 2, 1, 1, 8, 4096, Precision.BF16, AllReduceKind.AUTO,
                Overlap.NONE, true);
        DecodeResult r1 = DecodeStep.run(one);
        DecodeResult r2 = DecodeStep.run(two);
        assertTrue(r2.weightsBytesPerGpu() < 0.55 * r1.weightsBytesPerGpu());
        assertEquals(1, r2.layers().get(39).spans().stream().filter(s -> s.name().startsWith("send_to_stage")).count());
        assertTrue(r2.itlMs() > r1.itlMs(), "a micro-batch crosses both stages in turn and pays the send");
    }

    @Test
    void aLayoutThatDoesNotFitSaysWhatWould() {
        InputException e = assertThrows(InputException.class, () -> DecodeStep.run(spec("llama-3.1-405b", "hgx-h100", 8, 32, Overlap.NONE)));
        assertTrue(e.getMessage().contains("needs 103.") && e.getMessage().contains("--pp 2 would fit"), e.getMessage());
    }

    private static DecodeSpec onFile(String file, int tp, int dp, int batch) {
        return new DecodeSpec(ModelConfig.load("llama-3-8b"), file, "../topologies/" + file, null, null, null, tp, 1, 1, dp, batch, 4096,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true);
    }

    /** A topology file runs the step as the preset it describes does. */
    @Test
    void aTopologyFileRunsLikeItsPreset() {
        DecodeResult file = DecodeStep.run(onFile("hgx-h100.yaml", 8, 1, 32));
        DecodeResult preset = DecodeStep.run(spec("llama-3-8b", "hgx-h100", 8, 32, Overlap.NONE));
        assertEquals(preset.itlMs(), file.itlMs(), 1e-9);
        assertEquals(preset.commBytesPerGpu(), file.commBytesPerGpu());
    }

    /**
     * The seeds' 4-GPU box, NVLink pairs joined through the CPUs: TP=4 crosses the socket link and is
     * warned about; TP=2 inside each pair with DP=2 gives more tokens per GPU, as the seeds advise.
     */
    @Test
    void onTheSeedsBoxTpStaysInsideTheNvlinkPair() {
        DecodeResult tp4 = DecodeStep.run(onFile("nvlink-pairs-4gpu.yaml", 4, 1, 8));
        DecodeResult tp2 = DecodeStep.run(onFile("nvlink-pairs-4gpu.yaml", 2, 2, 8));
        assertTrue(tp4.warnings().get(0).contains("a CPU socket link"), tp4.warnings().toString());
        assertTrue(tp2.warnings().isEmpty(), tp2.warnings().toString());
        assertTrue(tp2.tokensPerSPerGpu() > 1.2 * tp4.tokensPerSPerGpu(), tp2.tokensPerSPerGpu() + " vs " + tp4.tokensPerSPerGpu());
        InputException tooMany = assertThrows(InputException.class, () -> DecodeStep.run(onFile("nvlink-pairs-4gpu.yaml", 4, 2, 8)));
        assertTrue(tooMany.getMessage().contains("has 1 node(s) of 4 GPUs"), tooMany.getMessage());
    }

    @Test
    void theSameInputsGiveTheSameStep() {
        assertEquals(DecodeStep.run(spec("mixtral-8x7b", "hgx-h100", 4, 16, Overlap.TWO_BATCH)),
                DecodeStep.run(spec("mixtral-8x7b", "hgx-h100", 4, 16, Overlap.TWO_BATCH)));
    }
}
