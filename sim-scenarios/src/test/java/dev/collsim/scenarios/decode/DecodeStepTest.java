package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.NcclArch;
import dev.collsim.topologies.file.TopologyFile;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class DecodeStepTest {
    private static DecodeSpec spec(String model, String system, int tp, int batch, Overlap overlap) {
        return new DecodeSpec(ModelConfig.load(model), DecodeSystem.preset(system), OptionalInt.empty(), tp, 1, 1, 1, batch, 4096, Precision.BF16,
                AllReduceKind.AUTO, overlap, true);
    }

    /**
     * Batch-1 decode streams the weights: the step takes at least their bytes over HBM's peak and at
     * most over the lowest efficiency a kernel reaches, plus every kernel's floor.
     */
    @Test
    void batchOneDecodeIsBoundByReadingTheWeights() {
        DecodeResult r = DecodeStep.run(spec("llama-3-8b", "hgx-h100", 1, 1, Overlap.NONE));
        double bytes = r.memory().weightsBytes() + r.memory().kvBytes();
        double peak = bytes / 3.35e12 * 1e3;
        int kernels = r.layers().stream().mapToInt(l -> l.spans().size()).sum() + r.timeline().beforeLayers().size() + r.timeline().afterLayers().size();
        assertEquals(kernels, r.timing().kernels());
        // Every kernel's floor is the graph's gap and its fixed time; an attention kernel's and a GEMM's fixed time are their own.
        KernelCosts.AttentionConstants.Decode attention = KernelCosts.AttentionConstants.of(NcclArch.HOPPER, r.setup().engine()).grouped().gqa();
        KernelCosts.GemmConstants gemm = KernelCosts.GemmConstants.of(NcclArch.HOPPER, 16, false, ServingEngine.VLLM);
        int layers = r.layers().size();
        java.util.Set<String> gemms = java.util.Set.of("qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head");
        long gemmKernels = java.util.stream.Stream.concat(r.layers().stream().flatMap(l -> l.spans().stream()),
                java.util.stream.Stream.concat(r.timeline().beforeLayers().stream(), r.timeline().afterLayers().stream()))
                .filter(s -> gemms.contains(s.name())).count();
        assertEquals(4 * layers + 1, gemmKernels);
        assertEquals((kernels * (KernelCosts.GRAPH_GAP_US + KernelCosts.FIXED_US) + layers * (attention.fixedUs() - KernelCosts.FIXED_US)
                + gemmKernels * (gemm.fixedUs() - KernelCosts.FIXED_US)) / 1e3, r.timing().kernelFloor().ms(), 1e-9);
        assertTrue(r.itl().ms() > peak + r.timing().kernelFloor().ms(), r.itl().ms() + " ms");
        double slowest = Math.min(attention.memory(), gemm.memory());
        assertTrue(r.itl().ms() < peak / slowest + r.timing().kernelFloor().ms() + layers * attention.waveUs() / 1e3 + r.timing().hostExposed().ms() + 0.01,
                r.itl().ms() + " ms");
        assertEquals(0, r.comm().busy().ms(), 0, "one GPU has nothing to reduce");
    }

    /** Two all-reduces a layer under TP, simulated on the system: their terms add up, and NVLink beats PCIe. */
    @Test
    void tensorParallelAllReducesAreSimulatedOnTheFabric() {
        DecodeResult hgx = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.NONE));
        long reduces = hgx.layers().get(0).spans().stream().filter(s -> s.kind() == DecodeResult.KernelKind.COMM).count();
        assertEquals(2, reduces);
        assertEquals(hgx.comm().busy().ms(), hgx.comm().bandwidthTerm().ms() + hgx.comm().latencyTerm().ms(), 1e-9);
        assertEquals(hgx.comm().busy().ms(), hgx.comm().exposed().ms(), 1e-6, "one stream: every collective is exposed");
        assertEquals(hgx.itl().ms(), hgx.timing().compute().ms() + hgx.comm().busy().ms() + hgx.timing().hostExposed().ms(), 1e-6);
        assertEquals(ServingEngine.VLLM.hostMicros(32) / 1000, hgx.timing().hostExposed().ms(), 1e-9, "vLLM V1 without async scheduling: the host is exposed");
        assertTrue(hgx.warnings().isEmpty(), hgx.warnings().toString());
        DecodeResult pcie = DecodeStep.run(new DecodeSpec(ModelConfig.load("llama-3-8b"), DecodeSystem.preset("pcie-l40s-8x"), OptionalInt.empty(), 8, 1, 1, 1, 32,
                4096, Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true));
        assertTrue(pcie.warnings().get(0).contains("PCIe and a CPU socket link"), pcie.warnings().toString());
        DecodeResult nvlink8b = DecodeStep.run(spec("llama-3-8b", "hgx-h100", 8, 32, Overlap.NONE));
        assertTrue(pcie.comm().busy().ms() > 3 * nvlink8b.comm().busy().ms(), pcie.comm().busy().ms() + " ms on PCIe, " + nvlink8b.comm().busy().ms() + " on NVLink");
    }

    /**
     * Two micro-batches hide most of the collectives under the other's compute; on a memory-bound
     * dense model each micro-batch reads the weights again, so the step itself gets longer.
     */
    @Test
    void twoBatchOverlapHidesCommunicationButRereadsWeights() {
        DecodeResult none = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.NONE));
        DecodeResult two = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.TWO_BATCH));
        assertTrue(two.comm().exposed().ms() < 0.2 * none.comm().exposed().ms(), two.comm().exposed().ms() + " vs " + none.comm().exposed().ms());
        assertTrue(two.timing().compute().ms() > 1.5 * none.timing().compute().ms());
        assertEquals(none.memory().weightsBytes(), two.memory().weightsBytes(), 0);
        assertEquals(2, two.layers().get(0).spans().stream().filter(s -> s.name().equals("attn_all_reduce")).count());
    }

    /** A fused GEMM and all-reduce overlaps tiles: less exposed than on one stream, and a collective takes SMs from the GEMM. */
    @Test
    void fusedOverlapRunsTheCollectiveUnderTheGemm() {
        DecodeResult none = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.NONE));
        DecodeResult fused = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.FUSED));
        assertEquals(none.comm().bytesPerGpu(), fused.comm().bytesPerGpu(), none.comm().bytesPerGpu() * 0.01, "the tiles run the same kernel");
        assertTrue(fused.comm().exposed().ms() < none.comm().exposed().ms(), fused.comm().exposed().ms() + " vs " + none.comm().exposed().ms());
        assertTrue(fused.timing().compute().ms() > none.timing().compute().ms(), "the GEMM tiles share SMs with the collective");
    }

    /** On an MoE model over 8 expert-parallel GPUs, one micro-batch's dispatch and combine run under the other's experts. */
    @Test
    void twoBatchOverlapHidesTheExpertAllToAlls() {
        DecodeSpec none = new DecodeSpec(ModelConfig.load("mixtral-8x7b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 1, 1, 8, 8, 64, 4096,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true);
        DecodeSpec two = new DecodeSpec(none.model(), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 1, 1, 8, 8, 64, 4096, Precision.BF16,
                AllReduceKind.AUTO, Overlap.TWO_BATCH, true);
        DecodeResult a = DecodeStep.run(none);
        DecodeResult b = DecodeStep.run(two);
        assertTrue(b.comm().exposed().ms() < 0.2 * a.comm().exposed().ms(), b.comm().exposed().ms() + " vs " + a.comm().exposed().ms());
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
        java.util.List<DecodeResult.Span> all = new java.util.ArrayList<>(r.timeline().beforeLayers());
        r.layers().forEach(l -> all.addAll(l.spans()));
        all.addAll(r.timeline().afterLayers());
        for (int stream = 0; stream < 2; stream++) {
            int s = stream;
            var spans = all.stream().filter(x -> x.stream() == s).sorted(java.util.Comparator.comparingDouble(x -> x.start().ms())).toList();
            for (int i = 1; i < spans.size(); i++) {
                assertTrue(spans.get(i).start().ms() >= spans.get(i - 1).end().ms() - 1e-12, "stream " + s + " overlaps at " + spans.get(i));
            }
        }
        // Within a micro-batch, a layer starts after the one before it ends its last kernel of that micro-batch.
        for (int l = 1; l < r.layers().size(); l++) {
            for (int b = 0; b < 2; b++) {
                int mb = b;
                double prevEnd = r.layers().get(l - 1).spans().stream().filter(x -> x.microBatch() == mb)
                        .mapToDouble(x -> x.end().ms()).max().orElse(0);
                double start = r.layers().get(l).spans().stream().filter(x -> x.microBatch() == mb)
                        .mapToDouble(x -> x.start().ms()).min().orElse(Double.MAX_VALUE);
                assertTrue(start >= prevEnd - 1e-12, "layer " + l + " micro-batch " + b + " starts before the last ends");
            }
        }
    }

    @Test
    void expertParallelMoeDispatchesAndCombines() {
        DecodeResult r = DecodeStep.run(new DecodeSpec(ModelConfig.load("deepseek-v3"), DecodeSystem.preset("gb200-nvl72"), OptionalInt.empty(), 1, 1, 72, 72, 64, 4096,
                Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true));
        assertFalse(r.layers().get(2).moe());
        var moe = r.layers().get(3).spans().stream().map(DecodeResult.Span::name).toList();
        assertTrue(moe.containsAll(java.util.List.of("router", "topk", "dispatch", "moe_align", "experts_gate_up", "experts_down", "moe_sum",
                "shared_gate_up", "shared_down", "combine")), moe.toString());
        assertEquals(64 * 72 / (r.itl().ms() / 1000), r.tokensPerS(), 1e-6);
        assertEquals(r.tokensPerS() / 72, r.tokensPerSPerGpu(), 1e-9);
    }

    /**
     * MoE TP inside EP (TensorRT-LLM's moe_tp_size): Mixtral's 8 experts over EP 2, each split over tp / ep = 2 of the 4
     * ranks. Every rank holds the replica's tokens, so nothing is dispatched; the busiest rank holds 4 experts in halves
     * (the weights of TP 4 without EP) and gets their share of the picks; an all-reduce sums the ranks' outputs.
     */
    @Test
    void moeTensorParallelInsideExpertParallel() {
        ModelConfig mixtral = ModelConfig.load("mixtral-8x7b");
        DecodeSpec tpInEp = new DecodeSpec(mixtral, DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 4, 1, 2, 1, 16, 4096, Precision.BF16,
                AllReduceKind.AUTO, Overlap.NONE, true);
        assertEquals(2, tpInEp.moeTp());
        assertFalse(tpInEp.expertsAllToAll());
        DecodeResult r = DecodeStep.run(tpInEp);
        DecodeResult tpOnly = DecodeStep.run(spec("mixtral-8x7b", "hgx-h100", 4, 16, Overlap.NONE));
        assertEquals(tpOnly.memory().weightsBytes(), r.memory().weightsBytes(), 1, "4 experts in halves hold what 8 in quarters do");
        var spans = r.layers().get(0).spans();
        var names = spans.stream().map(DecodeResult.Span::name).toList();
        assertFalse(names.contains("dispatch") || names.contains("combine"), names.toString());
        assertTrue(names.contains("moe_all_reduce"), names.toString());
        // 16 tokens x top-2 picks, a half of them to this rank's 4 experts; each expert read if any of the 16 picks it.
        double active = 4 * (1 - Math.pow(1 - 2.0 / 8, 16));
        double inner = 14336 / 2.0;
        double rows = 16 * 2 * 4 / 8.0;
        long gateUp = spans.stream().filter(s -> s.name().equals("experts_gate_up")).findFirst().orElseThrow().bytes();
        assertEquals(2 * 4096 * inner * active * 2 + rows * (2 * inner + 4096) * 2, gateUp, 1);
    }

    /**
     * A Qwen3.5 linear layer in decode launches Gated DeltaNet's kernels, not attention's, and its recurrent step reads and
     * writes every sequence's state: 8 sequences on TP 4 hold 16 value heads of 128 x 128 FP32 each (1 MiB), and read their
     * queries, keys and values (3,072 channels a rank) and write outputs and read gates (2,048 each) in BF16. The full layer
     * gates its attention's output; a prompt's forward runs the chunked rule and sends the states with the KV cache.
     */
    @Test
    void hybridLayersRunGatedDeltaNetAndKeepStates() {
        ModelConfig q = ModelConfig.load("src/main/resources/calibration/models/qwen3.5-397b-a17b.json");
        DecodeSpec spec = new DecodeSpec(q, DecodeSystem.preset("hgx-b300"), OptionalInt.empty(), 4, 1, 1, 1, 8, 4096, Precision.FP8,
                AllReduceKind.AUTO, Overlap.NONE, true);
        DecodeResult r = DecodeStep.run(spec);
        var linear = r.layers().get(0).spans();
        var names = linear.stream().map(DecodeResult.Span::name).toList();
        assertTrue(names.containsAll(java.util.List.of("in_proj_qkvz", "in_proj_ba", "causal_conv1d", "gdn_gating", "recurrent_gated_delta_rule",
                "gated_rms_norm", "out_proj")), names.toString());
        assertFalse(names.contains("attention"), names.toString());
        long recurrent = linear.stream().filter(s -> s.name().equals("recurrent_gated_delta_rule")).findFirst().orElseThrow().bytes();
        assertEquals(8 * (3072 + 2048) * 2 + 8 * 2 * (16 * 128 * 128 * 4), recurrent);
        var full = r.layers().get(3).spans().stream().map(DecodeResult.Span::name).toList();
        assertTrue(full.contains("attention") && full.contains("attn_gate") && !full.contains("in_proj_qkvz"), full.toString());

        PrefillResult prompt = Prefill.run(spec.withTokens(1, 2048), 2048, 1, 0);
        assertEquals(2048.0 * 15 * (2 * 256) * spec.kvBytes() + q.linearStateBytesPerRank(4), prompt.kv().bytesPerGpu(), 1);
        assertTrue(prompt.ttft().ms() > 0);
    }

    /**
     * gpt-oss-120b on TP 8 launches the same kernels on its sliding and its full layers, but a sliding layer's attention
     * reads its window only: 16 sequences x 128 tokens x one KV head's keys and values (2 x 64) in BF16 is 524,288 bytes,
     * against 16 x 4,096 tokens, 16,777,216 bytes, on the full layer.
     */
    @Test
    void slidingLayersReadTheirWindowOfTheCache() {
        ModelConfig oss = ModelConfig.load("src/main/resources/calibration/models/gpt-oss-120b.json");
        DecodeResult r = DecodeStep.run(new DecodeSpec(oss, DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 8, 1, 1, 1, 16, 4096,
                oss.weights(), AllReduceKind.AUTO, Overlap.NONE, true));
        // MXFP4 experts against BF16 activations (W4A16), the rest BF16: nothing to quantise.
        assertEquals(java.util.List.of("attn_norm", "qkv_proj", "rope", "kv_cache_write", "attention", "o_proj", "attn_all_reduce",
                "mlp_norm", "router", "topk", "moe_align", "experts_gate_up", "act", "experts_down", "moe_sum", "moe_all_reduce"),
                names(r.layers().get(0)));
        assertEquals(names(r.layers().get(0)), names(r.layers().get(1)));
        assertEquals(16L * 128 * 2 * 64 * 2, attentionBytes(r.layers().get(0)));
        assertEquals(16L * 4096 * 2 * 64 * 2, attentionBytes(r.layers().get(1)));
    }

    /**
     * MiniMax-M2.5 normalises all of a layer's queries (and keys) together (qk_norm_type per_layer): on TP 4 each rank sums the
     * squares of its 12 query and 2 KV heads of 128 for its 8 tokens, (12 + 2) x 128 x 2 bytes a token read and two FP32
     * written, 8 x 3,584 + 8 x 8 = 28,736 bytes, and the group all-reduces those 64 bytes before the norm; on one GPU the
     * norm alone.
     */
    @Test
    void perLayerQkNormAllReducesItsVarianceOverTp() {
        ModelConfig m = ModelConfig.load("src/main/resources/calibration/models/minimax-m2.5.json");
        assertEquals(ModelConfig.QkNorm.ACROSS_HEADS, m.qkNorm());
        DecodeResult tp4 = DecodeStep.run(new DecodeSpec(m, DecodeSystem.preset("hgx-b300"), OptionalInt.empty(), 4, 1, 1, 1, 8, 4096, Precision.FP8,
                AllReduceKind.AUTO, Overlap.NONE, true));
        java.util.List<String> names = names(tp4.layers().get(0));
        assertEquals(java.util.List.of("qkv_proj", "qk_variance", "qk_norm_all_reduce", "qk_norm"),
                names.subList(names.indexOf("qkv_proj"), names.indexOf("qk_norm") + 1));
        assertEquals(8L * 14 * 128 * 2 + 8 * 8, tp4.layers().get(0).spans().stream().filter(s -> s.name().equals("qk_variance")).findFirst()
                .orElseThrow().bytes());
        DecodeResult tp1 = DecodeStep.run(new DecodeSpec(m, DecodeSystem.preset("hgx-b300"), OptionalInt.empty(), 1, 1, 1, 1, 8, 4096, Precision.FP8,
                AllReduceKind.AUTO, Overlap.NONE, true));
        assertTrue(names(tp1.layers().get(0)).contains("qk_norm") && !names(tp1.layers().get(0)).contains("qk_norm_all_reduce"));
    }

    private static long attentionBytes(DecodeResult.Layer layer) {
        return layer.spans().stream().filter(s -> s.name().equals("attention")).findFirst().orElseThrow().bytes();
    }

    /**
     * Every model config of the calibration set, and the test resources' (Qwen3-Next), loads and runs a decode step and a
     * prompt's forward in its checkpoint's format.
     */
    @Test
    void everyCalibrationModelRunsDecodeAndPrefill() throws Exception {
        try (var calibration = java.nio.file.Files.list(Path.of("src/main/resources/calibration/models"));
             var resources = java.nio.file.Files.list(Path.of("src/test/resources/models"))) {
            for (Path file : java.util.stream.Stream.concat(calibration, resources).sorted().toList()) {
                ModelConfig m = ModelConfig.load(file.toString());
                DecodeSpec spec = new DecodeSpec(m, DecodeSystem.preset("hgx-b300"), OptionalInt.empty(), 8, 1, 1, 1, 4, 1024, m.weights(),
                        AllReduceKind.AUTO, Overlap.NONE, true);
                DecodeResult step = DecodeStep.run(spec);
                assertTrue(step.itl().ms() > 0 && step.memory().weightsBytes() > 0, file.toString());
                assertTrue(Prefill.run(spec.withTokens(1, 1024), 1024, 1, 0).ttft().ms() > step.itl().ms(), file.toString());
            }
        }
    }

    @Test
    void pipelineStagesSendActivationsAndSplitTheWeights() {
        DecodeSpec one = spec("llama-3-70b", "hgx-h100", 4, 8, Overlap.NONE);
        DecodeSpec two = new DecodeSpec(one.model(), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 4, 2, 1, 1, 8, 4096, Precision.BF16, AllReduceKind.AUTO,
                Overlap.NONE, true);
        DecodeResult r1 = DecodeStep.run(one);
        DecodeResult r2 = DecodeStep.run(two);
        assertTrue(r2.memory().weightsBytes() < 0.55 * r1.memory().weightsBytes());
        assertEquals(1, r2.layers().get(39).spans().stream().filter(s -> s.name().startsWith("send_to_stage")).count());
        assertEquals(4, r2.layout().microBatch(), "the batch of 8 splits over the two stages' in-flight slots");
        assertEquals(r2.timing().gpuPath().ms() + r2.timing().bubble().ms() + r2.timing().hostExposed().ms(), r2.itl().ms(), 1e-9);
        assertTrue(r2.timing().bubble().ms() >= 0);
    }

    /**
     * Pipeline parallelism as engines run it: P micro-batches in flight, one per stage, so at the
     * same batch per GPU the tokens/s per GPU stay those of one stage, less the bubbles and sends
     * (it halved before, when one micro-batch crossed twice the GPUs).
     */
    @Test
    void pipelineStagesKeepTheTokensPerGpuAtTheSameBatchPerGpu() {
        DecodeResult pp1 = DecodeStep.run(spec("llama-3-70b", "hgx-h100", 8, 32, Overlap.NONE));
        DecodeResult pp2 = DecodeStep.run(new DecodeSpec(ModelConfig.load("llama-3-70b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 8, 2, 1, 1, 64, 4096, Precision.BF16,
                AllReduceKind.AUTO, Overlap.NONE, true));
        assertEquals(16, pp2.layout().gpus());
        assertEquals(32, pp2.layout().microBatch());
        double ratio = pp2.tokensPerSPerGpu() / pp1.tokensPerSPerGpu();
        assertTrue(ratio > 0.85 && ratio <= 1.0, "PP 2 / PP 1 tokens/s per GPU = " + ratio);
        assertTrue(pp2.itl().ms() > pp1.itl().ms(), "each micro-batch crosses both stages and the send between them");
    }

    /**
     * The engines launch different kernels for the same layer: TensorRT-LLM fuses rotary and the
     * cache write into attention and the norm into the all-reduce; SGLang runs DeepSeek's shared
     * expert inside the routed experts' grouped GEMM. Fewer kernels, fewer floors, a shorter step.
     */
    @Test
    void eachEngineLaunchesItsOwnKernelSet() {
        ModelConfig llama = ModelConfig.load("llama-3-70b");
        DecodeResult vllm = DecodeStep.run(withEngine(llama, "hgx-h100", 8, 1, Precision.FP8, ServingEngine.VLLM));
        DecodeResult trt = DecodeStep.run(withEngine(llama, "hgx-h100", 8, 1, Precision.FP8, ServingEngine.TRTLLM));
        var vllmLayer = names(vllm.layers().get(1));
        var trtLayer = names(trt.layers().get(1));
        assertTrue(vllmLayer.containsAll(java.util.List.of("attn_norm", "quantize", "qkv_proj", "rope", "kv_cache_write", "attention",
                "o_proj", "attn_all_reduce", "mlp_norm", "gate_up_proj", "act", "down_proj", "mlp_all_reduce")), vllmLayer.toString());
        assertFalse(trtLayer.contains("rope") || trtLayer.contains("kv_cache_write") || trtLayer.contains("mlp_norm")
                || trtLayer.contains("act") || trtLayer.contains("quantize"), trtLayer.toString());
        // vLLM V1's compiled norms and activation write FP8 themselves: only the attention's output is quantised apart;
        // V0, not compiled, quantises before each of the four GEMMs.
        assertEquals(1, java.util.Collections.frequency(vllmLayer, "quantize"), vllmLayer.toString());
        var v0Layer = names(DecodeStep.run(withEngine(llama, "hgx-h100", 8, 1, Precision.FP8, ServingEngine.VLLM_V0)).layers().get(1));
        assertEquals(4, java.util.Collections.frequency(v0Layer, "quantize"), v0Layer.toString());
        assertTrue(trt.timing().kernels() < 0.6 * vllm.timing().kernels(), trt.timing().kernels() + " vs " + vllm.timing().kernels());
        assertTrue(trt.timing().kernelFloor().ms() < vllm.timing().kernelFloor().ms());
        assertEquals(Precision.FP8, trt.layout().kvDtype(), "TensorRT-LLM's FP8 checkpoints keep an FP8 cache");
        assertEquals(Precision.BF16, vllm.layout().kvDtype(), "vLLM's auto cache keeps the model's activation type");
        ModelConfig deepseek = ModelConfig.load("deepseek-v3");
        var sglang = names(DecodeStep.run(withEngine(deepseek, "hgx-h200", 8, 4, Precision.FP8, ServingEngine.SGLANG)).layers().get(3));
        var vllmDs = names(DecodeStep.run(withEngine(deepseek, "hgx-h200", 8, 4, Precision.FP8, ServingEngine.VLLM)).layers().get(3));
        assertFalse(sglang.contains("shared_gate_up"), sglang.toString());
        assertTrue(vllmDs.contains("shared_gate_up"), vllmDs.toString());
    }

    /**
     * At batch 1 every kernel pays its floor: Llama-3-70B on 4 H100s launches about a thousand kernels
     * a step, and their floors are more than a tenth of it; without CUDA graphs the host's issue time
     * sets the shortest kernels' pace and the step gets longer.
     */
    @Test
    void smallKernelsPayTheirFloorAndEagerModeTheHost() {
        ModelConfig llama = ModelConfig.load("llama-3-70b");
        DecodeResult graphs = DecodeStep.run(withEngine(llama, "hgx-h100", 4, 1, Precision.BF16, ServingEngine.VLLM));
        assertTrue(graphs.timing().kernels() > 900 && graphs.timing().kernels() < 1100, graphs.timing().kernels() + " kernels");
        assertTrue(graphs.timing().kernelFloor().ms() > 0.12 * graphs.itl().ms(), graphs.timing().kernelFloor().ms() + " of " + graphs.itl().ms());
        DecodeSpec eager = new DecodeSpec(llama, DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 4, 1, 1, 1, 1, 4096, Precision.BF16, AllReduceKind.AUTO,
                Overlap.NONE, false, ServingEngine.VLLM, null, null);
        DecodeResult e = DecodeStep.run(eager);
        assertTrue(e.itl().ms() > graphs.itl().ms() + graphs.timing().kernels() * (ServingEngine.VLLM.eagerLaunchUs - KernelCosts.GRAPH_GAP_US - KernelCosts.FIXED_US)
                / 1e3 * 0.5, e.itl().ms() + " vs " + graphs.itl().ms());
    }

    /**
     * The engine's host time between steps: waited for without an overlap scheduler (vLLM V1 by
     * default), hidden behind the GPU's step with one (SGLang by default, vLLM's async scheduling),
     * and only its excess shows when it outlasts the step.
     */
    @Test
    void theOverlapSchedulerHidesTheHostBehindTheStep() {
        ModelConfig llama = ModelConfig.load("llama-3-70b");
        DecodeResult waits = DecodeStep.run(scheduled(llama, ServingEngine.VLLM, null));
        DecodeResult async = DecodeStep.run(scheduled(llama, ServingEngine.VLLM, true));
        DecodeResult sglang = DecodeStep.run(scheduled(llama, ServingEngine.SGLANG, null));
        DecodeResult sglangOff = DecodeStep.run(scheduled(llama, ServingEngine.SGLANG, false));
        assertEquals(waits.timing().host().ms(), waits.timing().hostExposed().ms(), 1e-12);
        assertEquals(0, async.timing().hostExposed().ms(), 1e-12);
        assertEquals(waits.itl().ms() - waits.timing().host().ms(), async.itl().ms(), 1e-9);
        assertEquals(0, sglang.timing().hostExposed().ms(), 1e-12);
        assertEquals(sglang.itl().ms() + sglangOff.timing().host().ms(), sglangOff.itl().ms(), 1e-9);
    }

    private static DecodeSpec scheduled(ModelConfig m, ServingEngine engine, Boolean overlapScheduler) {
        return new DecodeSpec(m, DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 8, 1, 1, 1, 8, 4096, Precision.BF16, AllReduceKind.AUTO, Overlap.NONE,
                true, engine, null, overlapScheduler);
    }

    private static DecodeSpec withEngine(ModelConfig m, String system, int tp, int batch, Precision precision, ServingEngine engine) {
        return new DecodeSpec(m, DecodeSystem.preset(system), OptionalInt.empty(), tp, 1, 1, 1, batch, 4096, precision, AllReduceKind.AUTO, Overlap.NONE,
                engine.cudaGraphsByDefault(), engine, null, null);
    }

    private static java.util.List<String> names(DecodeResult.Layer layer) {
        return layer.spans().stream().map(DecodeResult.Span::name).toList();
    }

    @Test
    void aLayoutThatDoesNotFitSaysWhatWould() {
        InputException e = assertThrows(InputException.class, () -> DecodeStep.run(spec("llama-3.1-405b", "hgx-h100", 8, 32, Overlap.NONE)));
        assertTrue(e.getMessage().contains("needs 103.") && e.getMessage().contains("--pp 2 would fit"), e.getMessage());
    }

    private static DecodeSpec onFile(String file, int tp, int dp, int batch) {
        DecodeSystem system = new DecodeSystem.File(file, TopologyFile.loadSystem(Path.of("../topologies/" + file)));
        return new DecodeSpec(ModelConfig.load("llama-3-8b"), system, OptionalInt.empty(), tp, 1, 1, dp, batch, 4096, Precision.BF16,
                AllReduceKind.AUTO, Overlap.NONE, true);
    }

    /** A topology file runs the step as the preset it describes does. */
    @Test
    void aTopologyFileRunsLikeItsPreset() {
        DecodeResult file = DecodeStep.run(onFile("hgx-h100.yaml", 8, 1, 32));
        DecodeResult preset = DecodeStep.run(spec("llama-3-8b", "hgx-h100", 8, 32, Overlap.NONE));
        assertEquals(preset.itl().ms(), file.itl().ms(), 1e-9);
        assertEquals(preset.comm().bytesPerGpu(), file.comm().bytesPerGpu());
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
