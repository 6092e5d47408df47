package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.topologies.catalog.GpuModel;
import org.junit.jupiter.api.Test;

/** The attention kernels' mechanisms: a prompt's causal tiles over the SMs, a decode step's waves of CTAs and its cache read. */
class AttentionKernelsTest {
    private static final KernelCosts H100 = new KernelCosts(GpuModel.H100_SXM, true, ServingEngine.TRTLLM);

    private static KernelCosts.AttentionShape prompt(double sequences, double tokens, double heads) {
        return new KernelCosts.AttentionShape(sequences, tokens, 0, heads, heads, 128, 128, 2, false);
    }

    private static KernelCosts.AttentionShape decode(double sequences, double context, double heads, double kvHeads) {
        return new KernelCosts.AttentionShape(sequences, 1, context, heads, kvHeads, 128, 128, 2, false);
    }

    /**
     * A sliding window of 128 tokens: a 4,096-token prompt's 32 query tiles run min(2, i) key tiles each (their window's and
     * their own), 63 in all against 528 causal; its FLOPs are each query's min(128, position) keys; a decode step reads 128
     * tokens of the cache whatever the context.
     */
    @Test
    void aSlidingWindowCapsTheKeysEachQueryReads() {
        assertEquals(63, KernelCosts.cappedSum(0, 32, 2), 1e-9);
        assertEquals(528, KernelCosts.cappedSum(0, 32, Double.POSITIVE_INFINITY), 1e-9);
        assertEquals(4, KernelCosts.cappedSum(10, 1, 4), 1e-9, "a query past the window reads the window");
        var sliding = new KernelCosts.AttentionShape(1, 4096, 0, 8, 8, 128, 128, 2, false, 128);
        assertEquals(2.0 * (128 * 129 / 2 + (4096 - 128) * 128.0) * 8 * 256, sliding.flops(), 1e-6);
        assertEquals(2.0 * (4096 * 4097 / 2.0) * 8 * 256, prompt(1, 4096, 8).flops(), 1e-6);
        // 64 heads fill the SMs either way: the window saves (528 - 63) x 64 tiles' work over the 132 SMs, nothing else.
        var slidingHeads = new KernelCosts.AttentionShape(1, 4096, 0, 64, 64, 128, 128, 2, false, 128);
        double tile = 2.0 * 128 * 128 * 256 / (989.4e12 / 132
                * KernelCosts.AttentionConstants.of(dev.collsim.core.nccl.NcclArch.HOPPER, ServingEngine.TRTLLM).promptMath()) * 1e6;
        assertEquals((528 - 63) * 64 * tile / 132, H100.promptAttentionMicros(prompt(1, 4096, 64)) - H100.promptAttentionMicros(slidingHeads), 1e-6);
        var step = new KernelCosts.AttentionShape(64, 1, 5000, 8, 2, 128, 128, 2, false, 128);
        assertEquals(64 * 128 * 2 * 256 * 2, step.cacheBytes(), 1e-9);
        assertEquals(decode(64, 5000, 8, 2).cacheBytes() * 128 / 5000, step.cacheBytes(), 1e-6);
    }

    /** Causal attention over a long prompt is quadratic: twice the tokens, nearly four times the time once the SMs are full. */
    @Test
    void aLongPromptsAttentionGrowsWithTheSquareOfItsLength() {
        double ratio = H100.promptAttentionMicros(prompt(1, 16384, 32)) / H100.promptAttentionMicros(prompt(1, 8192, 32));
        assertTrue(ratio > 3.5 && ratio < 4.05, "16K over 8K tokens: " + ratio);
    }

    /**
     * One head of a 16K prompt is 128 query tiles, the last of which runs 128 key tiles alone: the longest CTA, not the
     * work over 132 SMs, sets its time, so a second head (256 CTAs, still less work a SM than that CTA) costs almost nothing.
     */
    @Test
    void theLongestCausalTileBoundsAFewHeads() {
        double one = H100.promptAttentionMicros(prompt(1, 16384, 1));
        double two = H100.promptAttentionMicros(prompt(1, 16384, 2));
        assertTrue(two < one * 1.05, one + " us for one head, " + two + " us for two");
        double many = H100.promptAttentionMicros(prompt(1, 16384, 64));
        assertTrue(many > one * 10, "64 heads fill the SMs many times over: " + many + " us");
    }

    /**
     * At a context of one token the cache read is nothing and a decode kernel's time is its waves: 132 (sequence, KV head)
     * CTAs fill an H100's SMs once, the 133rd starts a second wave that costs Hopper's fitted wave time.
     */
    @Test
    void aDecodeKernelPaysPerWaveOfItsCtas() {
        double oneWave = H100.decodeAttentionMicros(decode(132, 1, 8, 1));
        double twoWaves = H100.decodeAttentionMicros(decode(133, 1, 8, 1));
        assertEquals(KernelCosts.AttentionConstants.of(GpuModel.H100_SXM.arch(), ServingEngine.TRTLLM).grouped().gqa().waveUs(), twoWaves - oneWave, 0.01);
    }

    /**
     * Each decode kernel the engine dispatches has its own constants: on H100 TensorRT-LLM's BF16 XQA pays about four times
     * its FP8 variant's time a wave (aiconfigurator's table: 1,024 sequences of one token, 64 query heads over 8 KV heads,
     * 269 us over a BF16 cache and 77 us over an FP8 one), and one query head a KV head (MHA) runs another kernel again.
     */
    @Test
    void theDecodeKernelIsTheOneTheShapeDispatches() {
        KernelCosts.AttentionShape bf16 = new KernelCosts.AttentionShape(1024, 1, 1, 64, 8, 128, 128, 2, false);
        KernelCosts.AttentionShape fp8 = new KernelCosts.AttentionShape(1024, 1, 1, 64, 8, 128, 128, 1, false);
        double overBf16 = H100.decodeAttentionMicros(bf16);
        double overFp8 = H100.decodeAttentionMicros(fp8);
        assertTrue(overBf16 > 2.5 * overFp8, overBf16 + " us over a BF16 cache, " + overFp8 + " over FP8");
        assertTrue(overBf16 > 200 && overBf16 < 340 && overFp8 > 55 && overFp8 < 100, overBf16 + " and " + overFp8 + " us");
        KernelCosts.AttentionConstants.DecodeKernels kernels = KernelCosts.AttentionConstants.of(GpuModel.H100_SXM.arch(), ServingEngine.TRTLLM).grouped();
        assertEquals(kernels.mha(), kernels.of(decode(64, 2048, 32, 32)));
        assertEquals(kernels.gqa(), kernels.of(decode(64, 2048, 32, 8)));
        assertEquals(kernels.gqaFp8(), kernels.of(fp8));
    }

    /** A long context streams the cache at Hopper's fitted share of HBM: Llama-3-70B's 8 KV heads, 64 sequences of 32K, BF16. */
    @Test
    void aLongContextStreamsTheCacheAtItsShareOfHbm() {
        KernelCosts.AttentionShape s = decode(64, 32768, 64, 8);
        KernelCosts.AttentionConstants.Decode c = KernelCosts.AttentionConstants.of(GpuModel.H100_SXM.arch(), ServingEngine.TRTLLM).grouped().gqa();
        double read = s.cacheBytes() / (GpuModel.H100_SXM.roofline().hbmBytesPerSecond() * c.memory()) * 1e6;
        double micros = H100.decodeAttentionMicros(s);
        assertTrue(micros > read && micros < read * 1.05 + c.fixedUs() + 4 * c.waveUs(), micros + " us against a read of " + read);
    }

    /**
     * TensorRT-LLM's XQA splits a context as computeMultiBlockCount does: 131,071 tokens are 1,023 blocks of 128, cut to
     * round(sqrt(8 x 1,023)) = 90; 16 sequences of it would be 10.9 waves of 132 SMs, so 90 / (10.9 / 8) floors to 66;
     * 100 tokens are one block. trtllm-gen on Blackwell and FlashAttention split to fill the SMs, each split two 128-token
     * steps at least: 148 splits of one sequence on a B200, 8 of a 2,047-token context, 9 each for 16 sequences.
     */
    @Test
    void eachKernelSplitsTheContextByItsOwnRule() {
        assertEquals(90, H100.kvSplits(fp8Decode(1, 131071, 8, 1), 1));
        assertEquals(66, H100.kvSplits(fp8Decode(16, 131071, 8, 1), 16));
        assertEquals(1, H100.kvSplits(fp8Decode(1, 100, 8, 1), 1));
        assertEquals(132, H100.kvSplits(fp8Decode(1, 131071, 8, 8), 1), "MHA's one head per KV head runs the masked-MHA kernel, no XQA");
        KernelCosts b200 = new KernelCosts(GpuModel.B200, true, ServingEngine.TRTLLM);
        assertEquals(148, b200.kvSplits(fp8Decode(1, 131071, 8, 1), 1));
        assertEquals(8, b200.kvSplits(fp8Decode(1, 2047, 8, 1), 1));
        assertEquals(9, b200.kvSplits(fp8Decode(16, 131071, 8, 1), 16));
        assertEquals(132, new KernelCosts(GpuModel.H100_SXM, true, ServingEngine.VLLM).kvSplits(fp8Decode(1, 131071, 8, 1), 1));
    }

    /**
     * One sequence of a long context on one KV head leaves HBM idle: XQA's 90 CTAs each loop over 1,456 tokens, and that
     * loop, not the 16.8 MB read, sets the time (aiconfigurator's H100 table: 31.8 us at 131,071 tokens, 20.0 us at 32,767,
     * FP8 cache, 2 query heads of 64). A quarter of the context splits in half as many blocks, so it takes about half the
     * loop; where the batch fills the SMs the read binds again.
     */
    @Test
    void aFewSequencesOfALongContextAreBoundByEachCtasLoop() {
        KernelCosts.AttentionShape one = new KernelCosts.AttentionShape(1, 1, 131071, 2, 1, 64, 64, 1, false);
        KernelCosts.AttentionShape quarter = new KernelCosts.AttentionShape(1, 1, 32767, 2, 1, 64, 64, 1, false);
        KernelCosts.AttentionConstants.Decode c = KernelCosts.AttentionConstants.of(GpuModel.H100_SXM.arch(), ServingEngine.TRTLLM).grouped().gqaFp8();
        double read = one.cacheBytes() / (GpuModel.H100_SXM.roofline().hbmBytesPerSecond() * c.memory()) * 1e6;
        double loop = 131071.0 / 90 * c.tokenUs();
        assertTrue(loop > 2 * read, loop + " us of loop against " + read + " us of read");
        assertEquals(c.fixedUs() + c.waveUs() + loop, H100.decodeAttentionMicros(one), 1e-9);
        double measured = 31.8 - 1.5;  // the table's time less the graph's launch gap
        assertEquals(measured, H100.decodeAttentionMicros(one), 0.2 * measured);
        double loops = (H100.decodeAttentionMicros(one) - c.fixedUs() - c.waveUs()) / (H100.decodeAttentionMicros(quarter) - c.fixedUs() - c.waveUs());
        assertEquals(131071.0 / 90 / (32767.0 / 45), loops, 1e-9);
        KernelCosts.AttentionShape full = new KernelCosts.AttentionShape(256, 1, 131071, 2, 1, 64, 64, 1, false);
        double fullRead = full.cacheBytes() / (GpuModel.H100_SXM.roofline().hbmBytesPerSecond() * c.memory()) * 1e6;
        assertEquals(c.fixedUs() + 2 * c.waveUs() + fullRead, H100.decodeAttentionMicros(full), 1e-6);
    }

    private static KernelCosts.AttentionShape fp8Decode(double sequences, double context, double heads, double kvHeads) {
        return new KernelCosts.AttentionShape(sequences, 1, context, heads, kvHeads, 128, 128, 1, false);
    }

    /**
     * A prompt's forward prices its attention by the prompt's shape: Llama-3-8B's 4,096 tokens on one H100 under
     * TensorRT-LLM, launched eagerly, spend on the first layer's attention the issue gap and {@link
     * KernelCosts#promptAttentionMicros} of one sequence of 4,096 tokens, 32 query and 8 KV heads of 128.
     */
    @Test
    void aPromptsForwardPricesItsAttentionByThePromptsShape() {
        DecodeSpec spec = new EngineSetup(ServingEngine.TRTLLM, null, null, null).layout(ModelConfig.load("llama-3-8b"), DecodeSystem.preset("hgx-h100"),
                1, 1, 1, 1, 4096, 4096, Precision.BF16, Overlap.NONE);
        DecodeResult forward = DecodeStep.prefillForward(spec, 0, new CommModel.Cache(), false);
        double span = forward.layers().get(0).spans().stream().filter(x -> x.name().equals("attention")).findFirst().orElseThrow().length().ms() * 1000;
        KernelCosts eager = new KernelCosts(GpuModel.H100_SXM, false, ServingEngine.TRTLLM);
        double kernel = eager.promptAttentionMicros(new KernelCosts.AttentionShape(1, 4096, 0, 32, 8, 128, 128, 2, false));
        assertEquals(Math.max(eager.launchMicros(), kernel + KernelCosts.GRAPH_GAP_US), span, 1e-6 * span);
    }
}
