package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): the lightning indexer's kernels and the top-k the attention reads. */
class SparseAttentionTest {
    private static final String V32 = "src/test/resources/models/deepseek-v3.2.json";

    private static DecodeResult step(String model, int batch, int context) {
        ModelConfig m = ModelConfig.load(model);
        return DecodeStep.run(new DecodeSpec(m, DecodeSystem.preset("hgx-h200"), OptionalInt.empty(), 8, 1, 1, 1, batch, context, Precision.FP8,
                AllReduceKind.AUTO, Overlap.NONE, true, ServingEngine.SGLANG, null, null));
    }

    @Test
    void configsGiveTheIndexer() {
        ModelConfig v32 = ModelConfig.load(V32);
        assertEquals(new ModelConfig.SparseAttention(64, 128, 2048), v32.sparse());
        assertEquals(new ModelConfig.SparseAttention(32, 128, 2048), ModelConfig.load("src/main/resources/calibration/models/glm-5.json").sparse());
        assertNull(ModelConfig.load("deepseek-v3").sparse());
        // The indexer's projections, 61 x (1,536 x 64 x 128 + 7,168 x (128 + 64)) = 851,509,248 weights, beside DeepSeek-V3's.
        assertEquals(851_509_248, v32.totalParams() - ModelConfig.load("deepseek-v3").totalParams(), 1);
        assertEquals(2048, v32.attended(10));
        InputException e = assertThrows(InputException.class, () -> ModelConfig.parse(
                "{\"hidden_size\": 64, \"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"intermediate_size\": 128, \"vocab_size\": 100,"
                        + " \"index_topk\": 16}", "dsa.json"));
        assertTrue(e.getMessage().startsWith("dsa.json:1: index_topk: DeepSeek's sparse attention indexes from the queries' low-rank"),
                e.getMessage());
    }

    /**
     * DeepSeek-V3.2 on TP 8 in FP8, 4 sequences at 8,192 tokens, worked by hand: the indexer's query projection, replicated,
     * 1,536 x 8,192 FP8 weights plus 4 rows of (1,536 + 8,192) x 2; the key and weights projection in BF16, 7,168 x 192 x 2
     * plus 4 rows of (7,168 + 192) x 2; the scores, each query against 8,193 keys (the cache and its own), the 132-byte index
     * keys read once a sequence, the FP8 queries read and the FP32 logits written, 2 x 8,193 x 4 x 64 x 128 FLOPs; the
     * attention reads the 2,048 tokens the top-k keeps of each sequence's latent cache, not 8,192.
     */
    @Test
    void aDecodeLayerIndexesTheWholeCacheAndAttendsToTheTopK() {
        DecodeResult r = step(V32, 4, 8192);
        DecodeResult.Layer layer = r.layers().get(3);
        List<String> names = layer.spans().stream().map(DecodeResult.Span::name).toList();
        assertEquals(List.of("qkv_a_proj", "q_a_norm", "kv_a_norm", "quantize", "indexer_q_proj", "indexer_k_proj", "indexer_k_cache", "indexer_logits",
                "indexer_topk", "q_b_proj"), names.subList(names.indexOf("qkv_a_proj"), names.indexOf("q_b_proj") + 1));
        assertEquals(1536L * 8192 + 4 * (1536 + 8192) * 2, bytes(layer, "indexer_q_proj"));
        assertEquals(7168L * 192 * 2 + 4 * (7168 + 192) * 2, bytes(layer, "indexer_k_proj"));
        assertEquals(4L * 8193 * 132 + 4 * 8192 + 4 * 8193 * 4, bytes(layer, "indexer_logits"));
        DecodeResult.Span logits = layer.spans().stream().filter(s -> s.name().equals("indexer_logits")).findFirst().orElseThrow();
        assertEquals(2.0 * 8193 * 4 * 64 * 128, logits.flops(), 1);
        int kvBytes = r.layout().kvDtype() == Precision.FP8 ? 1 : 2;
        assertEquals(4L * 2048 * 576 * kvBytes, bytes(layer, "attention"));
        assertEquals(4L * 8192 * 576 * kvBytes, bytes(step("deepseek-v3", 4, 8192).layers().get(3), "attention"));
    }

    /**
     * The index cache is every token's, whatever the top-k: 132 bytes a token and layer on every TP rank, so 16 sequences of
     * 8,192 tokens over 61 layers hold 16 x 8,192 x 61 x 132 = 1,055,391,744 bytes more than DeepSeek-V3 (the same latent).
     * At long context the top-k pays: the step at 32,768 tokens is shorter than DeepSeek-V3's.
     */
    @Test
    void theIndexCacheHoldsEveryTokenAndLongContextsDecodeFaster() {
        assertEquals(16.0 * 8192 * 61 * 132, step(V32, 16, 8192).memory().kvBytes() - step("deepseek-v3", 16, 8192).memory().kvBytes(), 1);
        assertTrue(step(V32, 16, 32768).itl().ms() < step("deepseek-v3", 16, 32768).itl().ms());
        PrefillResult prompt = Prefill.run(new DecodeSpec(ModelConfig.load(V32), DecodeSystem.preset("hgx-h200"), OptionalInt.empty(), 8, 1, 1, 1, 1,
                4096, Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true, ServingEngine.SGLANG, null, null), 4096, 1, 0);
        assertEquals(61 * (576.0 * prompt.layout().kvDtype().kvBytes() + 132), prompt.kv().bytesPerToken(), 1e-9);
    }

    private static long bytes(DecodeResult.Layer layer, String name) {
        return layer.spans().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().bytes();
    }
}
