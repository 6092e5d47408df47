package dev.collsim.scenarios.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A transformer's shape as a Hugging Face {@code config.json} gives it: what the decode step needs
 * (sizes of the projections, experts, the KV cache per token). The catalogue's models are such files
 * too, bundled under {@code models/}. Keys the step does not need are ignored, as any config has many.
 *
 * @param experts          routed experts per MoE layer; 0 for a dense model
 * @param moeIntermediate  one expert's intermediate size (Mixtral's is its {@code intermediate_size})
 * @param firstDenseLayers layers before the first MoE layer ({@code first_k_dense_replace})
 * @param mla              DeepSeek's multi-head latent attention, or null for grouped-query attention
 * @param qkNorm           an RMSNorm on each head's queries and keys before rotary (Qwen3's {@code model_type}s)
 * @param weights          the precision the checkpoint is published in: its {@code quantization_config}'s method
 *                         (DeepSeek-V3's block-scaled FP8, gpt-oss's MXFP4), else BF16; what runs when no --dtype is given
 * @param maxContext       the longest sequence (prompt and output) it takes: {@code max_position_embeddings}, 0 where the file does not say
 * @param sliding          the layers that attend to a window of the latest tokens only ({@code layer_types}' sliding_attention,
 *                         gpt-oss's every other layer), or null where every layer attends to the whole context
 */
public record ModelConfig(String name, int hidden, int layers, int heads, int kvHeads, int headDim, int intermediate, int vocab,
                          int experts, int expertsPerToken, int moeIntermediate, int sharedExperts, int firstDenseLayers, Mla mla,
                          boolean qkNorm, Precision weights, int maxContext, SlidingWindow sliding) {

    /** Sliding-window attention: {@code layers} attend to the last {@code window} tokens (their own included). */
    public record SlidingWindow(int window, Set<Integer> layers) {
        public SlidingWindow {
            layers = Set.copyOf(layers);
        }
    }

    /** The {@code layer_types} collsim models: every token attends to all before it, or to a window of them. */
    static final List<String> LAYER_TYPES = List.of("full_attention", "sliding_attention");

    /** Multi-head latent attention's ranks: queries and keys/values pass through low-rank projections; the cache holds the latent. */
    public record Mla(int qLoraRank, int kvLoraRank, int ropeHeadDim, int nopeHeadDim, int vHeadDim) {}

    public static final List<String> CATALOGUE = List.of("llama-3-8b", "llama-3-70b", "llama-3.1-405b", "mixtral-8x7b",
            "mixtral-8x22b", "deepseek-v3", "qwen3-235b-a22b");

    /**
     * A catalogue model by name (any case: Llama-3-70B is llama-3-70b), a {@code config.json} by path,
     * or a catalogue model by another name of its architecture or its Hugging Face id ({@link ModelNames}),
     * which then keeps that name.
     */
    public static ModelConfig load(String nameOrPath) {
        String name = CATALOGUE.stream().filter(c -> c.equalsIgnoreCase(nameOrPath)).findFirst().orElse(null);
        if (name != null) {
            return bundled(name, name);
        }
        Path path = Path.of(nameOrPath);
        if (nameOrPath.endsWith(".json") || Files.exists(path)) {
            return parse(TextFile.read(path, nameOrPath), nameOrPath);
        }
        ModelNames.Resolved known = ModelNames.resolve(nameOrPath).orElseThrow(() -> new InputException("--model '" + nameOrPath
                + "': not a catalogue model (" + String.join(", ", CATALOGUE) + "), another name of one (deepseek-r1,"
                + " llama-3.1-70b, a Hugging Face id) nor a config.json file"));
        String shown = nameOrPath.substring(nameOrPath.lastIndexOf('/') + 1);
        ModelConfig model = bundled(known.catalogueName(), shown);
        model = known.context().map(model::withMaxContext).orElse(model);
        return known.checkpoint().map(model::withWeights).orElse(model);
    }

    private static ModelConfig bundled(String catalogueName, String shownAs) {
        try (InputStream in = ModelConfig.class.getResourceAsStream("/models/" + catalogueName + ".json")) {
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), shownAs);
        } catch (IOException e) {
            throw new IllegalStateException("the bundled model " + catalogueName + " is missing", e);
        }
    }

    /** A config.json's text; {@code file} names it in errors. */
    /** Ten times the deepest published model: more is a typo, and each layer is simulated. */
    static final int MAX_LAYERS = 1_000;

    public static ModelConfig parse(String text, String file) {
        JsonNode root;
        try {
            root = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).readTree(text);
        } catch (JsonProcessingException e) {
            String why = e.getOriginalMessage().replaceFirst(": enable `[^`]*` to allow.*", "").replaceAll("\\s+", " ");
            throw new InputException(file + ":" + (e.getLocation() == null ? 1 : e.getLocation().getLineNr()) + ": not valid JSON ("
                    + why + ")");
        }
        if (root == null || !root.isObject()) {
            throw new InputException(file + ":1: expected a JSON object (a Hugging Face config.json)");
        }
        // A multimodal wrapper (Kimi-K2.5, Qwen3.5) keeps its language model's config under text_config.
        JsonNode wrapper = root;
        if (!root.has("hidden_size") && root.path("text_config").isObject()) {
            root = root.get("text_config");
        }
        Fields f = new Fields(root, text, file);
        // A layer of a kind collsim does not model (Qwen3.5's linear attention) says so before any size is missed.
        for (int l = 0; l < root.path("layer_types").size(); l++) {
            JsonNode type = root.path("layer_types").get(l);
            if (!LAYER_TYPES.contains(type.asText(""))) {
                throw f.error("layer_types", "layer " + l + " is " + type + "; collsim models " + String.join(" and ", LAYER_TYPES) + " layers");
            }
        }
        int hidden = f.required("hidden_size");
        int heads = f.required("num_attention_heads");
        int experts = 0;
        String expertsKey = null;
        for (String key : List.of("num_local_experts", "n_routed_experts", "num_experts")) {
            int n = f.optional(key, 0);
            if (n > 0 && experts > 0 && n != experts) {
                throw f.error(key, n + " experts, but " + expertsKey + " says " + experts);
            }
            if (n > 0) {
                experts = n;
                expertsKey = key;
            }
        }
        if (experts == 0 && f.optional("num_experts_per_tok", 0) > 0) {
            throw f.error("num_experts_per_tok", "given without an expert count (num_local_experts, n_routed_experts or num_experts)");
        }
        int intermediate = f.required("intermediate_size");
        Mla mla = root.has("kv_lora_rank") ? new Mla(f.optional("q_lora_rank", 0), f.required("kv_lora_rank"),
                f.required("qk_rope_head_dim"), f.required("qk_nope_head_dim"), f.required("v_head_dim")) : null;
        int perToken = experts > 0 ? f.required("num_experts_per_tok") : 0;
        if (perToken > experts) {
            throw f.error("num_experts_per_tok", "expected at most the " + experts + " experts");
        }
        if (hidden % heads != 0 && !root.has("head_dim") && mla == null) {
            throw f.error("num_attention_heads", "does not divide hidden_size " + hidden + "; give head_dim");
        }
        int kvHeads = f.optionalPositive("num_key_value_heads", heads);
        if (heads % kvHeads != 0) {
            throw f.error("num_key_value_heads", "expected a divisor of num_attention_heads " + heads);
        }
        int layers = f.required("num_hidden_layers");
        if (layers > MAX_LAYERS) {
            throw f.error("num_hidden_layers", layers + "; expected at most " + MAX_LAYERS + " (the largest models have about 100)");
        }
        int firstDense = f.optional("first_k_dense_replace", 0);
        if (firstDense > layers) {
            throw f.error("first_k_dense_replace", "expected at most num_hidden_layers " + layers);
        }
        String name = Path.of(file).getFileName().toString().replaceFirst("\\.json$", "");
        return new ModelConfig(name, hidden, layers, heads, kvHeads, f.optionalPositive("head_dim", hidden / heads), intermediate,
                f.required("vocab_size"), experts, perToken, experts > 0 ? f.optionalPositive("moe_intermediate_size", intermediate) : 0,
                f.optional("n_shared_experts", 0), experts > 0 ? firstDense : layers, mla,
                root.path("model_type").asText("").startsWith("qwen3"), checkpointPrecision(root.has("quantization_config") ? root : wrapper, f),
                f.optional("max_position_embeddings", 0),
                slidingWindow(root, f, layers));
    }

    /** The sliding layers {@code layer_types} names (one type a layer), with {@code sliding_window}'s width; null if none slides. */
    private static SlidingWindow slidingWindow(JsonNode root, Fields f, int layers) {
        JsonNode types = root.path("layer_types");
        if (types.isMissingNode() || types.isNull()) {
            return null;
        }
        if (!types.isArray() || types.size() != layers) {
            throw f.error("layer_types", "expected a list of " + layers + " layer types, one a layer (num_hidden_layers)");
        }
        Set<Integer> sliding = new TreeSet<>();
        for (int l = 0; l < layers; l++) {
            if (types.get(l).asText("").equals("sliding_attention")) {
                sliding.add(l);
            }
        }
        return sliding.isEmpty() ? null : new SlidingWindow(f.required("sliding_window"), sliding);
    }

    /**
     * Tokens layer {@code layer} attends to after {@code context} tokens: all of them, or its window's; what the KV cache keeps
     * for it too (vLLM's hybrid KV cache manager and SGLang's SWA pool keep a sliding layer's window only).
     */
    public double attendedTokens(int layer, double context) {
        int window = window(layer);
        return window > 0 ? Math.min(context, window) : context;
    }

    /** The window layer {@code layer} attends to, or 0 where it attends to the whole context. */
    public int window(int layer) {
        return sliding != null && sliding.layers().contains(layer) ? sliding.window() : 0;
    }

    private static Precision checkpointPrecision(JsonNode root, Fields f) {
        JsonNode quant = root.path("quantization_config");
        String method = quant.path("quant_method").asText("").toLowerCase(Locale.ROOT);
        for (JsonNode group : quant.path("config_groups")) {
            // compressed-tensors: a group of integer weights narrower than 8 bits is INT4 (Kimi-K2's experts), not modelled yet.
            JsonNode weights = group.path("weights");
            if (weights.path("type").asText("").equals("int") && weights.path("num_bits").asInt(16) < 8) {
                throw f.error("quantization_config", weights.path("num_bits").asInt() + "-bit integer weights (" + method
                        + "): not modelled yet; collsim runs BF16, FP8 and FP4 (MXFP4, NVFP4) checkpoints");
            }
        }
        return method.contains("fp8") ? Precision.FP8 : method.contains("fp4") ? Precision.FP4 : Precision.BF16;
    }

    /** This model in a checkpoint of another precision (a Hugging Face id's -FP8 or -FP4). */
    public ModelConfig withWeights(Precision checkpoint) {
        return new ModelConfig(name, hidden, layers, heads, kvHeads, headDim, intermediate, vocab, experts, expertsPerToken,
                moeIntermediate, sharedExperts, firstDenseLayers, mla, qkNorm, checkpoint, maxContext, sliding);
    }

    /** This model with another context window (Llama 3.1's 128K on Llama 3's shapes). */
    public ModelConfig withMaxContext(int tokens) {
        return new ModelConfig(name, hidden, layers, heads, kvHeads, headDim, intermediate, vocab, experts, expertsPerToken,
                moeIntermediate, sharedExperts, firstDenseLayers, mla, qkNorm, weights, tokens, sliding);
    }

    public boolean isMoe(int layer) {
        return experts > 0 && layer >= firstDenseLayers;
    }

    /** Parameters of one layer's attention: the projections in and out. */
    public double attentionParams() {
        return qkvParamsPerRank(1) + outParamsPerRank(1);
    }

    /**
     * The query, key and value projections one of {@code tp} ranks holds: heads split over the ranks,
     * KV heads too until there are fewer than ranks (then each rank keeps one), MLA's down-projections
     * on every rank.
     */
    public double qkvParamsPerRank(int tp) {
        double q = (double) heads / tp;
        if (mla == null) {
            return (double) hidden * (q + 2 * Math.max(1.0, (double) kvHeads / tp)) * headDim;
        }
        double qPath = mla.qLoraRank() > 0
                ? (double) hidden * mla.qLoraRank() + mla.qLoraRank() * q * (mla.nopeHeadDim() + mla.ropeHeadDim())
                : hidden * q * (mla.nopeHeadDim() + mla.ropeHeadDim());
        return qPath + (double) hidden * (mla.kvLoraRank() + mla.ropeHeadDim()) + mla.kvLoraRank() * q * (mla.nopeHeadDim() + mla.vHeadDim());
    }

    /** The output projection one of {@code tp} ranks holds. */
    public double outParamsPerRank(int tp) {
        return (double) heads / tp * (mla == null ? headDim : mla.vHeadDim()) * hidden;
    }

    /** Elements the KV cache holds per token and layer: keys and values of every KV head, or MLA's latent and rope key. */
    public double kvElementsPerToken() {
        return kvElementsPerTokenPerRank(1);
    }

    /** The KV cache's elements per token and layer on one of {@code tp} ranks (MLA's latent is on every rank). */
    public double kvElementsPerTokenPerRank(int tp) {
        return mla == null ? 2.0 * Math.max(1.0, (double) kvHeads / tp) * headDim : mla.kvLoraRank() + mla.ropeHeadDim();
    }

    /** Gate, up and down projections of a gated MLP of {@code inner} intermediate size. */
    public double mlpParams(int inner) {
        return 3.0 * hidden * inner;
    }

    public double totalParams() {
        double sum = 2.0 * vocab * hidden;
        for (int l = 0; l < layers; l++) {
            sum += attentionParams() + (isMoe(l)
                    ? (experts + sharedExperts) * mlpParams(moeIntermediate) + (double) hidden * experts
                    : mlpParams(intermediate));
        }
        return sum;
    }

    /** Reads fields, each error naming the file, the key's line and what was expected. */
    private record Fields(JsonNode root, String text, String file) {
        int required(String key) {
            if (!root.has(key)) {
                throw new InputException(file + ": missing '" + key + "'; expected a positive integer");
            }
            return positive(key);
        }

        int optional(String key, int otherwise) {
            return root.has(key) && !root.get(key).isNull() ? integer(key, 0) : otherwise;
        }

        int optionalPositive(String key, int otherwise) {
            return root.has(key) && !root.get(key).isNull() ? integer(key, 1) : otherwise;
        }

        private int positive(String key) {
            return integer(key, 1);
        }

        private int integer(String key, int min) {
            JsonNode v = root.get(key);
            if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min) {
                throw error(key, "expected " + (min > 0 ? "a positive" : "a non-negative") + " integer, got " + v);
            }
            return v.intValue();
        }

        InputException error(String key, String problem) {
            return new InputException(file + ":" + topLevelLine(key) + ": " + key + ": " + problem);
        }

        /** The line of the top-level key (not of the same name inside a nested object, as multimodal configs have). */
        private int topLevelLine(String key) {
            String quoted = "\"" + key + "\"";
            int depth = 0;
            int line = 1;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\n') {
                    line++;
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    depth--;
                } else if (c == '"') {
                    if (depth == 1 && text.startsWith(quoted, i)) {
                        return line;
                    }
                    for (i++; i < text.length() && text.charAt(i) != '"'; i++) {
                        i += text.charAt(i) == '\\' ? 1 : 0; // an escaped quote does not end the string
                    }
                }
            }
            return 1;
        }
    }
}
