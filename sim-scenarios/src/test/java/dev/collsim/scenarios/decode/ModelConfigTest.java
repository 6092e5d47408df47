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
        assertEquals(Precision.FP4, ModelConfig.load(mxfp4.toString()).weights());
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
                Precision.FP4, AllReduceKind.AUTO, Overlap.NONE, true);
        MemoryPlan plan = MemoryPlan.of(spec, dev.collsim.topologies.catalog.GpuModel.H100_SXM, 0, 1);
        assertEquals(64.0 * (18 * 5000 + 18 * 128) * 2 * 2 * 64 * 2, plan.kvBytes(), 1);
    }

    /** A multimodal wrapper's language model under text_config reads as the model itself. */
    @Test
    void aWrappersTextConfigIsTheModel(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("config.json");
        Files.writeString(file, "{\"architectures\": [\"SomeVLForConditionalGeneration\"], \"vision_config\": {\"hidden_size\": 1152},\n"
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
            {"{\"text_config\": {\"layer_types\": [\"linear_attention\", \"full_attention\"], \"hidden_size\": 8}}",
                "layer_types: layer 0 is \"linear_attention\"; collsim models full_attention and sliding_attention layers"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 2,"
                    + " \"layer_types\": [\"sliding_attention\"], \"sliding_window\": 128}", "layer_types: expected a list of 2 layer types"},
            {"{\"hidden_size\": 64, \"num_attention_heads\": 8, \"intermediate_size\": 1, \"vocab_size\": 10, \"num_hidden_layers\": 2,"
                    + " \"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\":"
                    + " {\"weights\": {\"num_bits\": 4, \"type\": \"int\"}}}}}", "quantization_config: 4-bit integer weights"},
            {"[1, 2]", ":1: expected a JSON object"},
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
