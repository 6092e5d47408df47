package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.topologies.catalog.GpuModel;
import org.junit.jupiter.api.Test;

/** The dense GEMMs' tile bound: kernels that give each output tile's K loop to one CTA, against cuBLAS's, which split K. */
class GemmKernelsTest {
    private static final KernelCosts H100_TRTLLM_BLOCK_FP8 = new KernelCosts(GpuModel.H100_SXM, true, ServingEngine.TRTLLM, true);
    private static final KernelCosts H100_TRTLLM = new KernelCosts(GpuModel.H100_SXM, true, ServingEngine.TRTLLM, false);

    /**
     * At one token a block-FP8 GEMM's CTAs, one per 128 columns, each stream the whole K: while they are fewer than the SMs
     * the time does not depend on N and grows with K (aiconfigurator's H100 table: 1 x 128 x 65,536 and 1 x 1,536 x 65,536
     * take 74 and 78 us), and it is far above the weights' traffic.
     */
    @Test
    void aBlockFp8GemmOfFewTilesTakesItsKLoopWhateverItsWidth() {
        double narrow = H100_TRTLLM_BLOCK_FP8.gemmMicros(1, 128, 65536, 1, 8);
        double wider = H100_TRTLLM_BLOCK_FP8.gemmMicros(1, 1536, 65536, 1, 8);
        assertEquals(narrow, wider, 0.1 * narrow, narrow + " vs " + wider + " us");
        assertTrue(narrow > 60 && narrow < 90, narrow + " us");
        assertTrue(H100_TRTLLM_BLOCK_FP8.gemmMicros(1, 128, 16384, 1, 8) < 0.4 * narrow, "a quarter of the K loop");
        double traffic = 128 * 65536 / (GpuModel.H100_SXM.roofline().hbmBytesPerSecond()) * 1e6;
        assertTrue(narrow > 10 * traffic, narrow + " us against " + traffic + " us of weights");
    }

    /** Once the CTAs outnumber the SMs, a second wave runs: 264 tiles of 64 x 128 take two waves on 132 SMs, 132 tiles one. */
    @Test
    void tilesBeyondTheSmsRunInAnotherWave() {
        KernelCosts.GemmConstants c = H100_TRTLLM_BLOCK_FP8.gemm(8);
        GpuModel.Roofline gpu = GpuModel.H100_SXM.roofline();
        double one = c.tileMicros(64, 132 * 128, 4096, 1, gpu, 8);
        assertEquals(2 * one, c.tileMicros(128, 132 * 128, 4096, 1, gpu, 8), 1e-9);
        assertEquals(one, c.tileMicros(1, 128, 4096, 1, gpu, 8), 1e-9);
        assertEquals(2 * one, c.tileMicros(1, 128, 4096, 133, gpu, 8), 1e-9, "a batched GEMM's batches are tiles too");
    }

    /** cuBLAS's BF16 and per-tensor FP8 GEMMs split K over idle SMs: no tile bound, 1 x 128 x 65,536 in a few times its traffic. */
    @Test
    void cublasGemmsSplitK() {
        GpuModel.Roofline gpu = GpuModel.H100_SXM.roofline();
        assertEquals(0, H100_TRTLLM.gemm(16).tileMicros(1, 128, 65536, 1, gpu, 16), 0);
        assertEquals(0, H100_TRTLLM.gemm(8).tileMicros(1, 128, 65536, 1, gpu, 8), 0);
        double bf16 = H100_TRTLLM.gemmMicros(1, 128, 65536, 2, 16);
        assertTrue(bf16 < 20, bf16 + " us");
    }

    /**
     * vLLM and SGLang run NVFP4 linear layers with FlashInfer's CUTLASS FP4 GEMM, about twice as fast as TensorRT-LLM's at one
     * token (B200 tables: 1 x 2,048 x 16,384 in 17 us against 37 us, each with the activation's quantisation and the launch,
     * some 4 us, which the GEMM alone leaves out).
     */
    @Test
    void theEnginesFp4GemmsDifferAtFewTokens() {
        double trtllm = new KernelCosts(GpuModel.B200, true, ServingEngine.TRTLLM).gemmMicros(1, 2048, 16384, 0.5625, 4);
        double vllm = new KernelCosts(GpuModel.B200, true, ServingEngine.VLLM).gemmMicros(1, 2048, 16384, 0.5625, 4);
        double sglang = new KernelCosts(GpuModel.B200, true, ServingEngine.SGLANG).gemmMicros(1, 2048, 16384, 0.5625, 4);
        assertEquals(vllm, sglang, 1e-9);
        assertTrue(trtllm > 1.6 * vllm, trtllm + " us under TensorRT-LLM, " + vllm + " under vLLM");
        assertTrue(trtllm > 28 && trtllm < 46, trtllm + " us");
        assertTrue(vllm > 8 && vllm < 19, vllm + " us");
    }

    /**
     * On Instinct GPUs the GEMMs take AITER's fitted constants (tools/aiter): MI300X's block-FP8 GEMM of 4,096 x 4,096 x
     * 4,096, which AITER's table times at 183 us for the kernel alone (0.29 of the FP8 peak), is priced near that, and one
     * token's 1 x 2,048 x 2,048 (5.2 us) within the fit's few-token bias (+17 %, the 64-row padding); vLLM and SGLang on
     * ROCm share the constants.
     */
    @Test
    void instinctGemmsTakeAitersConstants() {
        KernelCosts mi300x = new KernelCosts(GpuModel.MI300X, true, ServingEngine.VLLM, true);
        double big = mi300x.gemmMicros(4096, 4096, 4096, 1, 8);
        assertEquals(182.7, big, 0.15 * 182.7, big + " us");
        double one = mi300x.gemmMicros(1, 2048, 2048, 1, 8);
        assertTrue(one > 5.22 && one < 1.5 * 5.22, one + " us");
        assertEquals(KernelCosts.GemmConstants.CDNA3_FP8_BLOCK, mi300x.gemm(8));
        assertEquals(mi300x.gemm(8), new KernelCosts(GpuModel.MI300X, true, ServingEngine.SGLANG, true).gemm(8));
        assertEquals(KernelCosts.GemmConstants.CDNA4_BF16, new KernelCosts(GpuModel.MI355X, true, ServingEngine.VLLM).gemm(16));
        assertEquals(32, mi300x.groupedTileRows(256), 0, "AITER's fused MoE: 32-row tiles up to 256 tokens");
        assertEquals(64, mi300x.groupedTileRows(257), 0);
    }
}
