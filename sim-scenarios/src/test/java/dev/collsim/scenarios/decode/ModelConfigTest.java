package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelConfigTest {
    /** The catalogue's parameter counts come out at the models' published sizes. */
    @Test
    void catalogueModelsHaveTheirPublishedSizes() {
        Map<String, Double> billions = Map.of("llama-3-8b", 8.03, "llama-3-70b", 70.6, "llama-3.1-405b", 405.9,
                "mixtral-8x7b", 46.7, "mixtral-8x22b", 140.6, "deepseek-v3", 671.0, "qwen3-235b-a22b", 235.1);
        assertEquals(ModelConfig.CATALOGUE.size(), billions.size());
        for (String name : ModelConfig.CATALOGUE) {
            double params = ModelConfig.load(name).totalParams() / 1e9;
            assertEquals(billions.get(name), params, billions.get(name) * 0.02, name);
        }
    }

    /**
     * The calibration set's configs at their model cards' sizes, within 3 %: GLM-5 "744B parameters (40B active)" with its
     * sparse attention's indexer (32 heads of 128) and one MTP layer, Qwen3-32B's "Number of Parameters: 32.8B".
     */
    @Test
    void calibrationConfigsHaveTheirPublishedSizes() {
        ModelConfig glm = ModelConfig.load("src/main/resources/calibration/models/glm-5.json");
        assertEquals(744e9, glm.totalParams(), 744e9 * 0.03, glm.totalParams() / 1e9 + " billion");
        assertEquals(1, glm.mtpLayers());
        assertEquals(new ModelConfig.SparseAttention(32, 128, 2048), glm.sparse());
        ModelConfig qwen = ModelConfig.load("src/main/resources/calibration/models/qwen3-32b.json");
        assertEquals(32.8e9, qwen.totalParams(), 32.8e9 * 0.03, qwen.totalParams() / 1e9 + " billion");
        assertEquals(ModelConfig.QkNorm.PER_HEAD, qwen.qkNorm());
    }

    /**
     * gpt-oss-120b as published: MXFP4 experts (4 bits and an E8M0 scale per 32: 4.25 bits), attention, router, embedding
     * and LM head in BF16; one GPU's weights come to its checkpoint's 60.8 GiB (OpenAI's model card) within 3 %.
     */
    @Test
    void gptOssKeepsItsExpertsInMxfp4() {
        ModelConfig oss = ModelConfig.load("src/main/resources/calibration/models/gpt-oss-120b.json");
        assertEquals(Precision.MXFP4, oss.weights());
        assertEquals(4.25 / 8, Precision.MXFP4.bytesPerParam(), 0);
        assertEquals(Precision.ACTIVATION_BYTES, Precision.MXFP4.denseBytesPerParam(), 0);
        DecodeSpec one = new DecodeSpec(oss, DecodeSystem.preset("hgx-h100"), java.util.OptionalInt.empty(), 1, 1, 1, 1, 1, 1, oss.weights(),
                AllReduceKind.AUTO, Overlap.NONE, true);
        double gib = MemoryPlan.of(one, dev.collsim.topologies.catalog.GpuModel.H100_SXM, 0, 1).weightsBytes() / (1L << 30);
        assertEquals(60.8, gib, 60.8 * 0.03, gib + " GiB");
    }

    /** The docs' names and Hugging Face ids reach the catalogue model of their architecture, under the name given. */
    @Test
    void otherNamesOfACatalogueArchitectureLoadIt() {
        ModelConfig v3 = ModelConfig.load("deepseek-v3");
        ModelConfig r1 = ModelConfig.load("deepseek-r1");
        assertEquals("deepseek-r1", r1.name());
        assertEquals(v3.totalParams(), r1.totalParams(), 0);
        ModelConfig hf = ModelConfig.load("meta-llama/Llama-3.1-70B-Instruct");
        assertEquals("Llama-3.1-70B-Instruct", hf.name());
        assertEquals(ModelConfig.load("llama-3-70b").totalParams(), hf.totalParams(), 0);
        assertEquals(Precision.FP4, ModelConfig.load("nvidia/DeepSeek-R1-FP4").weights());
        assertEquals(Precision.FP8, ModelConfig.load("meta-llama/Llama-3.1-405B-Instruct-FP8").weights());
        InputException e = assertThrows(InputException.class, () -> ModelConfig.load("gpt-5"));
        assertTrue(e.getMessage().contains("another name of one (deepseek-r1, llama-3.1-70b, a Hugging Face id)"), e.getMessage());
    }

    /** A checkpoint's own precision, from its quantization_config: what runs without --dtype. */
    @Test
    void eachModelKeepsItsCheckpointsPrecision(@TempDir Path dir) throws Exception {
        assertEquals(Precision.FP8, ModelConfig.load("deepseek-v3").weights(), "DeepSeek-V3 is published in block-scaled FP8");
        assertEquals(Precision.BF16, ModelConfig.load("llama-3-70b").weights());
        Path mxfp4 = Files.writeString(dir.resolve("oss.json"), "{\"hidden_size\": 2880, \"num_attention_heads\": 64,"
                + " \"num_hidden_layers\": 36, \"intermediate_size\": 2880, \"vocab_size\": 201088,"
                + " \"quantization_config\": {\"quant_method\": \"mxfp4\"}}");
        assertEquals(Precision.MXFP4, ModelConfig.load(mxfp4.toString()).weights());
    }

    @Test
    void deepseekHasLatentAttentionAndDenseFirstLayers() {
        ModelConfig ds = ModelConfig.load("deepseek-v3");
        assertNotNull(ds.mla());
        assertEquals(576, ds.kvElementsPerToken(), 1e-9, "512 latent + 64 rope per token and layer");
        assertTrue(!ds.isMoe(2) && ds.isMoe(3));
        ModelConfig llama = ModelConfig.load("llama-3-70b");
        assertNull(llama.mla());
        assertEquals(2 * 8 * 128, llama.kvElementsPerToken(), 1e-9);
    }

    @Test
    void aHuggingFaceConfigReadsLikeTheCatalogue(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("config.json");
        Files.writeString(file, "{\"architectures\": [\"MixtralForCausalLM\"], \"hidden_size\": 4096, \"num_hidden_layers\": 32,\n"
                + " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 32000,\n"
                + " \"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"rope_theta\": 1000000.0}\n");
        ModelConfig m = ModelConfig.load(file.toString());
        assertEquals(ModelConfig.load("mixtral-8x7b").totalParams(), m.totalParams(), 1);
        assertEquals(8, m.experts());
    }

    /**
     * gpt-oss as published: every other layer attends to the last 128 tokens only (layer_types, sliding_window), so those
     * layers read and keep at most 128 tokens of the cache; the full layers all of it.
     */
    @Test
    void slidingLayersAttendToTheirWindow() {
        ModelConfig oss = ModelConfig.load("src/main/resources/calibration/models/gpt-oss-120b.json");
        assertEquals(128, oss.window(0), "layer 0 slides");
        assertEquals(0, oss.window(1), "layer 1 attends to everything");
        assertEquals(18, oss.sliding().layers().size());
        assertEquals(128, oss.attendedTokens(0, 5000), 0);
        assertEquals(100, oss.attendedTokens(0, 100), 0);
        assertEquals(5000, oss.attendedTokens(1, 5000), 0);
        assertNull(ModelConfig.load("llama-3-8b").sliding());
        // Half the layers keep 5,000 tokens and half 128: the KV cache of 64 sequences over TP 4 (2 of 8 KV heads of 64 a rank).
        DecodeSpec spec = new DecodeSpec(oss, DecodeSystem.preset("hgx-h100"), java.util.OptionalInt.empty(), 4, 1, 1, 1, 64, 5000,
                oss.weights(), AllReduceKind.AUTO, Overlap.NONE, true);
        MemoryPlan plan = MemoryPlan.of(spec, dev.collsim.topologies.catalog.GpuModel.H100_SXM, 0, 1);
        assertEquals(64.0 * (18 * 5000 + 18 * 128) * 2 * 2 * 64 * 2, plan.kvBytes(), 1);
    }

    /**
     * Qwen3.5-397B-A17B as published: 45 Gated DeltaNet layers and 15 gated full-attention layers, worked by hand from its
     * config.json. A linear layer's weights: queries and keys 16 x 128 each, values and gates 64 x 128 each, 2 x 64 logits,
     * the output 64 x 128 back to 4,096. A sequence keeps per linear layer 64 states of 128 x 128 FP32 and the convolution's
     * last 3 tokens of 12,288 channels in BF16; the KV cache only on the 15 full layers (2 KV heads of 256, keys and values).
     */
    @Test
    void qwen35LinearLayersKeepAStateNotACache() {
        ModelConfig q = ModelConfig.load("src/main/resources/calibration/models/qwen3.5-397b-a17b.json");
        assertEquals(45, q.linear().layers().size());
        assertTrue(q.isLinear(0) && q.isLinear(2) && !q.isLinear(3), "three linear layers, then a full one");
        assertEquals(15, q.cachedLayers());
        assertTrue(q.attentionGate());
        assertEquals(1, q.sharedExperts(), "shared_expert_intermediate_size 1024 is one expert of moe_intermediate_size 1024");
        assertEquals(4096.0 * (2 * 2048 + 2 * 8192 + 128) + 8192 * 4096, q.attentionParamsPerRank(0, 1), 0);
        // The gated attention's query projection carries a gate per query: 32 x 256 x 2, beside 2 KV heads of 256 each.
        assertEquals(4096.0 * (32 * 256 * 2 + 2 * 2 * 256) + 32 * 256 * 4096, q.attentionParamsPerRank(3, 1), 0);
        double perLayer = 64.0 * 128 * 128 * 4 + 3 * 12288 * 2;
        assertEquals(perLayer, q.linear().sequenceBytesPerRank(1), 0);
        assertEquals(45 * perLayer / 4, q.linearStateBytesPerRank(4), 1e-6);
        assertEquals(0, q.attendedTokens(0, 5000), 0);
        assertEquals(5000, q.attendedTokens(3, 5000), 0);
        // 32 sequences of 4,096 tokens on TP 4: KV on 15 layers (the 2 KV heads kept one a rank), states on 45.
        DecodeSpec spec = new DecodeSpec(q, DecodeSystem.preset("hgx-b300"), java.util.OptionalInt.empty(), 4, 1, 1, 1, 32, 4096,
                Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true);
        MemoryPlan plan = MemoryPlan.of(spec, dev.collsim.topologies.catalog.GpuModel.B300, 0, 1);
        assertEquals(32.0 * 15 * 4096 * 2 * 256 * 2, plan.kvBytes(), 1);
        assertEquals(32 * 45 * perLayer / 4, plan.stateBytes(), 1);
    }

    /**
     * Qwen3-Next-80B-A3B's config (aiconfigurator's model_configs copy of the Hugging Face file) gives no layer_types, only
     * full_attention_interval 4: as transformers derives them, layers 3, 7, ..., 47 are gated full attention and the other
     * 36 Gated DeltaNet; its attention is gated though the config does not say so. About 80 billion parameters, as
     * published (Qwen's model card: 80B in total, 3B activated).
     */
    @Test
    void qwen3NextDerivesItsLayersFromTheFullAttentionInterval() {
        ModelConfig q = ModelConfig.load("src/test/resources/models/qwen3-next-80b-a3b.json");
        assertEquals(36, q.linear().layers().size());
        assertTrue(q.isLinear(0) && q.isLinear(2) && !q.isLinear(3) && !q.isLinear(47), "three linear layers, then a full one");
        assertEquals(12, q.cachedLayers());
        assertTrue(q.attentionGate());
        assertEquals(2048.0 * (16 * 256 * 2 + 2 * 2 * 256) + 16 * 256 * 2048, q.attentionParamsPerRank(3, 1), 0);
        assertEquals(80e9, q.totalParams(), 80e9 * 0.03, q.totalParams() / 1e9 + " billion");
    }

    /**
     * Llama 4 Maverick's text model (the published config.json's text_config, as TensorRT-LLM's test copies it with its 48
     * layers): MoE on every other layer (interleave_moe_layer_step 2: layers 1, 3, ..., 47), each with 128 experts of
     * intermediate_size 8,192 and a shared expert of the same, the 24 dense layers intermediate_size_mlp 16,384 wide; three
     * layers of four attend within 8,192-token chunks, every fourth (no rotary) to the whole context. About 400 billion
     * parameters, as published (Meta: 400B in total, 17B active); Scout (16 experts on every layer) within 3 % of its
     * published 109 billion, which count the vision encoder this text model leaves out.
     */
    @Test
    void llama4InterleavesMoeAndChunksAttention(@TempDir Path dir) throws Exception {
        ModelConfig maverick = ModelConfig.load("src/test/resources/models/llama-4-maverick.json");
        assertTrue(!maverick.isMoe(0) && maverick.isMoe(1) && !maverick.isMoe(46) && maverick.isMoe(47));
        assertEquals(1, maverick.sharedExperts());
        assertEquals(8192, maverick.moeIntermediate());
        assertEquals(16384, maverick.intermediate());
        assertEquals(8192, maverick.window(0));
        assertEquals(0, maverick.window(3), "every fourth layer has no rotary and attends to everything");
        assertEquals(36, maverick.sliding().layers().size());
        double attention = 5120.0 * (40 + 2 * 8) * 128 + 40 * 128 * 5120;
        double expected = 2.0 * 202048 * 5120 + 48 * attention + 24 * 3.0 * 5120 * 16384 + 24 * ((128 + 1) * 3.0 * 5120 * 8192 + 5120.0 * 128);
        assertEquals(expected, maverick.totalParams(), 1);
        assertEquals(400e9, maverick.totalParams(), 400e9 * 0.03, maverick.totalParams() / 1e9 + " billion");
        Path scout = dir.resolve("scout.json");
        Files.writeString(scout, Files.readString(Path.of("src/test/resources/models/llama-4-maverick.json"))
                .replace("\"interleave_moe_layer_step\": 2", "\"interleave_moe_layer_step\": 1").replace("\"num_local_experts\": 128", "\"num_local_experts\": 16"));
        ModelConfig s = ModelConfig.load(scout.toString());
        assertTrue(s.isMoe(0) && s.isMoe(47));
        assertEquals(109e9, s.totalParams(), 109e9 * 0.03, s.totalParams() / 1e9 + " billion");
    }

    /**
     * Kimi-K2.5's compressed-tensors config keeps its routed experts in INT4 (groups of 32 with a BF16 scale each) and the
     * rest in BF16; the INT4 checkpoints of this architecture are about 594 GB (moonshotai/Kimi-K2-Thinking's safetensors on
     * Hugging Face; K2.5's adds a vision tower of under 1 GB).
     */
    @Test
    void kimiReadsAsInt4ExpertsBesideBf16() {
        ModelConfig kimi = ModelConfig.load("src/main/resources/calibration/models/kimi-k2.5.json");
        assertEquals(Precision.INT4, kimi.weights());
        DecodeSpec spec = new DecodeSpec(kimi, DecodeSystem.preset("hgx-b300"), java.util.OptionalInt.empty(), 1, 1, 1, 1, 1, 1,
                Precision.INT4, AllReduceKind.AUTO, Overlap.NONE, true);
        MemoryPlan plan = MemoryPlan.of(spec, dev.collsim.topologies.catalog.GpuModel.B300, 0, 1);
        double experts = 60.0 * 384 * 3 * 7168 * 2048 * 0.5625;
        double dense = kimi.totalParams() - 60.0 * 384 * 3 * 7168 * 2048;
        assertEquals(experts + dense * 2, plan.weightsBytes(), 1e-6 * experts);
        assertEquals(1, plan.weightsBytes() / 594e9, 0.03, plan.weightsBytes() / 1e9 + " GB: within 3 % of the published checkpoint");
    }

    /** A multimodal wrapper's language model under text_config reads as the model itself. */
    @Test
    void aWrappersTextConfigIsTheModel(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("config.json");
        Files.writeString(file, "{\"architectures\": [\"Qwen3VLMoeForConditionalGeneration\"], \"vision_config\": {\"hidden_size\": 1152},\n"
                + " \"text_config\": {\"hidden_size\": 4096, \"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
                + " \"num_key_value_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 32000, \"num_local_experts\": 8,"
                + " \"num_experts_per_tok\": 2}}\n");
        assertEquals(ModelConfig.load("mixtral-8x7b").totalParams(), ModelConfig.load(file.toString()).totalParams(), 1);
    }

    @Test
    void badConfigsNameTheFileTheLineAndTheField(@TempDir Path dir) throws Exception {
        String[][] cases = {
            {"{\"hidden_size\": 4096, \"num_attention_heads\": 32, \"intermediate_size\": 10, \"vocab_size\": 10,\n \"num_hidden_layers\": -1}",
                ":2: num_hidden_layers: expected a positive integer, got -1"},
            {"{\"hidden_size\": 4096}", ": missing 'num_attention_heads'"},
            {"{\"hidden_size\": \"big\"}", ":1: hidden_size: expected a positive integer, got \"big\""},
            {"{\"hidden_size\": 4096, \"num_attention_heads\": 32,\n\"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 2,"
                    + "\n\"num_key_value_heads\": 5}", ":3: num_key_value_heads: expected a divisor of num_attention_heads 32"},
            {"{\"hidden_size\": 4096,", ": not valid JSON"},
            {"{\"text_config\": {\"layer_types\": [\"mamba\", \"full_attention\"], \"hidden_size\": 8}}",
                "layer_types: layer 0 is \"mamba\"; collsim models full_attention, sliding_attention, linear_attention layers"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 1,"
                    + " \"layer_types\": [\"linear_attention\"], \"linear_num_key_heads\": 3, \"linear_num_value_heads\": 4}",
                "linear_num_value_heads: expected a multiple of linear_num_key_heads 3"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 1,"
                    + " \"layer_types\": [\"linear_attention\"], \"linear_num_key_heads\": 2, \"linear_num_value_heads\": 4}",
                "missing 'linear_key_head_dim'"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 2,"
                    + " \"layer_types\": [\"sliding_attention\"], \"sliding_window\": 128}", "layer_types: expected a list of 2 layer types"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 2,"
                    + " \"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\":"
                    + " {\"weights\": {\"num_bits\": 3, \"type\": \"int\"}}}}}", "quantization_config: 3-bit integer weights"},
            {"[1, 2]", ":1: expected a JSON object"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 4,"
                    + " \"num_experts\": 4, \"num_experts_per_tok\": 1,\n\"mlp_only_layers\": [0, 4]}",
                ":2: mlp_only_layers: expected layer indices from 0 to 3 (num_hidden_layers 4), got 4"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 4,"
                    + " \"num_experts\": 4, \"num_experts_per_tok\": 1,\n\"moe_layers\": \"odd\"}",
                ":2: moe_layers: expected a list of layer indices, got \"odd\""},
            {"{\"hidden_size\": 64,\n\"architectures\": [\"NemotronHForCausalLM\"]}",
                ":2: architectures: NemotronHForCausalLM is not a family collsim models; it models LlamaForCausalLM,"},
        };
        for (String[] c : cases) {
            Path file = dir.resolve("bad.json");
            Files.writeString(file, c[0]);
            InputException e = assertThrows(InputException.class, () -> ModelConfig.load(file.toString()), c[0]);
            assertTrue(e.getMessage().startsWith(file.toString()) && e.getMessage().contains(c[1]), e.getMessage());
        }
        InputException unknown = assertThrows(InputException.class, () -> ModelConfig.load("llama-9"));
        assertTrue(unknown.getMessage().contains("not a catalogue model"), unknown.getMessage());
    }
}
