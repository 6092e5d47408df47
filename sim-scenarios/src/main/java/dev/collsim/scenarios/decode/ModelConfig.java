package dev.collsim.scenarios.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * @param denseLayers      the layers of a MoE model whose MLP is dense: before {@code first_k_dense_replace}, off the MoE
 *                         step ({@code interleave_moe_layer_step}, {@code decoder_sparse_step}: Llama 4 Maverick's every
 *                         other layer) or in {@code mlp_only_layers}
 * @param mla              DeepSeek's multi-head latent attention, or null for grouped-query attention
 * @param qkNorm           an RMSNorm of the queries and keys before rotary: each head's (Qwen3's {@code model_type}s), or
 *                         all heads' together (MiniMax-M2's {@code qk_norm_type} per_layer)
 * @param weights          the precision the checkpoint is published in: its {@code quantization_config}'s method
 *                         (DeepSeek-V3's block-scaled FP8, gpt-oss's MXFP4), else BF16; what runs when no --dtype is given
 * @param maxContext       the longest sequence (prompt and output) it takes: {@code max_position_embeddings}, 0 where the file does not say
 * @param sliding          the layers that attend to a window of the latest tokens only ({@code layer_types}' sliding_attention,
 *                         gpt-oss's every other layer; Llama 4's chunked layers, at their chunk's width), or null where every
 *                         layer attends to the whole context
 * @param linear           the layers of Gated DeltaNet linear attention ({@code layer_types}' linear_attention, or all but
 *                         every {@code full_attention_interval}-th: Qwen3-Next's and Qwen3.5's three of four), or null where
 *                         every layer is softmax attention
 * @param attentionGate    a sigmoid gate on the attention's output, its logits a second half of the query projection
 *                         ({@code attn_output_gate}: Qwen3-Next's and Qwen3.5's gated attention)
 * @param mtpLayers        the checkpoint's multi-token-prediction layers, which {@code --spec mtp} drafts with: DeepSeek's and
 *                         GLM's {@code num_nextn_predict_layers}, Qwen3.5's {@code mtp_num_hidden_layers}, MiniMax-M2's
 *                         {@code num_mtp_modules} of {@code mtp_transformer_layers}; 0 where it has none
 * @param sparse           DeepSeek's sparse attention (DeepSeek-V3.2's and GLM-5's DSA: {@code index_topk}), or null where
 *                         every query attends to all the tokens before it
 */
public record ModelConfig(String name, int hidden, int layers, int heads, int kvHeads, int headDim, int intermediate, int vocab,
                          int experts, int expertsPerToken, int moeIntermediate, int sharedExperts, Set<Integer> denseLayers, Mla mla,
                          QkNorm qkNorm, Precision weights, int maxContext, SlidingWindow sliding, LinearAttention linear,
                          boolean attentionGate, int mtpLayers, SparseAttention sparse) {

    /** Sliding-window attention: {@code layers} attend to the last {@code window} tokens (their own included). */
    public record SlidingWindow(int window, Set<Integer> layers) {
        public SlidingWindow {
            layers = Set.copyOf(layers);
        }
    }

    /**
     * Gated DeltaNet (Yang, Kautz and Hatamizadeh, arXiv 2412.06464) as Qwen3-Next and Qwen3.5 run it in {@code layers}: the
     * hidden state projected to {@code keyHeads} query and key heads of {@code keyDim}, {@code valueHeads} value heads and
     * output gates of {@code valueDim}, and each value head's decay and write strength; a causal depthwise convolution
     * {@code convKernel} wide over the queries, keys and values; then per value head a {@code keyDim} x {@code valueDim} state
     * that every token decays and updates by the delta rule and reads with its query. The state (in {@code stateBytes}
     * per element: {@code mamba_ssm_dtype}) and the convolution's last tokens are all a sequence keeps: no KV cache.
     */
    public record LinearAttention(int keyHeads, int valueHeads, int keyDim, int valueDim, int convKernel, int stateBytes,
                                  Set<Integer> layers) {
        public LinearAttention {
            layers = Set.copyOf(layers);
        }

        /** Query and key channels: the width the convolution runs over with the values. */
        double keyChannels() {
            return (double) keyHeads * keyDim;
        }

        double valueChannels() {
            return (double) valueHeads * valueDim;
        }

        /** Weights of the layer's projections on one of {@code tp} ranks: queries, keys, values, gates in; decay and strength; out. */
        double paramsPerRank(int hidden, int tp) {
            return (double) hidden * (2 * keyChannels() + 2 * valueChannels() + 2.0 * valueHeads) / tp + valueChannels() / tp * hidden;
        }

        /** What one sequence keeps per layer on one of {@code tp} ranks: the recurrent state and the convolution's window (BF16). */
        double sequenceBytesPerRank(int tp) {
            double state = (double) valueHeads / tp * keyDim * valueDim * stateBytes;
            return state + (convKernel - 1) * (2 * keyChannels() + valueChannels()) / tp * Precision.ACTIVATION_BYTES;
        }
    }

    /** The {@code layer_types} collsim models: every token attends to all before it, or to a window of them, or a linear layer's state. */
    static final List<String> LAYER_TYPES = List.of("full_attention", "sliding_attention", "linear_attention");

    /**
     * The {@code architectures} whose layers collsim models from their config's fields: decoders of grouped-query or latent
     * (MLA) attention, full, sliding or Gated DeltaNet linear, over a dense or a MoE MLP, and the multimodal wrappers that
     * keep such a decoder under {@code text_config}. A config that names none of them is refused rather than simulated as
     * something else (MiniMax-M1's lightning attention, Mamba hybrids, Nemotron's per-layer shapes).
     */
    static final List<String> ARCHITECTURES = List.of("LlamaForCausalLM", "MistralForCausalLM", "MixtralForCausalLM",
            "Qwen2ForCausalLM", "Qwen2MoeForCausalLM", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM", "Qwen3NextForCausalLM",
            "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration", "Qwen3VLForConditionalGeneration",
            "Qwen3VLMoeForConditionalGeneration", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
            "KimiK25ForConditionalGeneration", "GptOssForCausalLM", "MiniMaxM2ForCausalLM", "Glm4MoeForCausalLM",
            "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM", "Llama4ForConditionalGeneration", "Llama4ForCausalLM");

    /** Where queries and keys are RMS-normalised before rotary. */
    public enum QkNorm {
        NONE,
        /** Each head's own (Qwen3's q_norm and k_norm of head_dim). */
        PER_HEAD,
        /**
         * All heads' together, one RMS over the layer's queries and one over its keys (MiniMax-M2's per_layer): under TP each
         * rank holds some heads, so the ranks all-reduce their sums of squares before normalising (vLLM's and SGLang's
         * MiniMaxText01RMSNormTP).
         */
        ACROSS_HEADS
    }

    /** Multi-head latent attention's ranks: queries and keys/values pass through low-rank projections; the cache holds the latent. */
    public record Mla(int qLoraRank, int kvLoraRank, int ropeHeadDim, int nopeHeadDim, int vHeadDim) {}

    /**
     * DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): a lightning indexer scores every cached token for each query with
     * {@code indexHeads} heads of {@code indexHeadDim} (ReLU of the query-key products, summed under per-head weights) over
     * a key cache of its own, and the MLA attends to the {@code topK} best only. The indexer's keys are kept in FP8 with a
     * float scale per 128 ({@link #cacheBytesPerToken}: vLLM's and SGLang's 132-byte layout).
     */
    public record SparseAttention(int indexHeads, int indexHeadDim, int topK) {
        /** The indexer's key cache per token and layer: its FP8 key and a 4-byte scale per 128 elements. */
        public double cacheBytesPerToken() {
            return indexHeadDim + 4.0 * Math.ceil(indexHeadDim / 128.0);
        }

        /** The indexer's projections, replicated on every TP rank: queries from the query latent, the key and the heads' weights from the hidden state. */
        double params(int hidden, int qLoraRank) {
            return (double) qLoraRank * indexHeads * indexHeadDim + (double) hidden * (indexHeadDim + indexHeads);
        }
    }

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
        checkArchitecture(wrapper, root, f);
        // A layer of a kind collsim does not model (Qwen3.5's linear attention) says so before any size is missed.
        for (int l = 0; l < root.path("layer_types").size(); l++) {
            JsonNode type = root.path("layer_types").get(l);
            if (!LAYER_TYPES.contains(type.asText(""))) {
                throw f.error("layer_types", "layer " + l + " is " + type + "; collsim models " + String.join(", ", LAYER_TYPES) + " layers");
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
        // A model whose every layer is MoE (Qwen3.5) may give no dense intermediate_size: its experts' stands in, never used.
        // Llama 4's dense layers are intermediate_size_mlp wide, its experts and shared expert intermediate_size.
        boolean llama4 = root.has("intermediate_size_mlp");
        int intermediate = llama4 ? f.required("intermediate_size_mlp")
                : experts > 0 && !root.has("intermediate_size") && f.optional("first_k_dense_replace", 0) == 0
                ? f.required("moe_intermediate_size") : f.required("intermediate_size");
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
        int moeIntermediate = experts == 0 ? 0 : llama4 ? f.required("intermediate_size") : f.optionalPositive("moe_intermediate_size", intermediate);
        JsonNode types = layerTypes(root, f, layers, llama4);
        // Qwen3-Next's attention is gated though its config does not say so (vLLM's Qwen3NextAttention: attn_output_gate defaults to true).
        boolean qwen3Next = root.path("model_type").asText("").equals("qwen3_next");
        return new ModelConfig(name, hidden, layers, heads, kvHeads, f.optionalPositive("head_dim", hidden / heads), intermediate,
                f.required("vocab_size"), experts, perToken, moeIntermediate, llama4 && experts > 0 ? 1 : sharedExperts(f, moeIntermediate),
                experts > 0 ? denseLayers(root, f, layers, firstDense) : Set.of(), mla,
                qkNorm(root, f), checkpointPrecision(root.has("quantization_config") ? root : wrapper, f),
                f.optional("max_position_embeddings", 0),
                slidingWindow(types, f, layers, llama4 ? "attention_chunk_size" : "sliding_window"), linearAttention(types, f),
                root.path("attn_output_gate").asBoolean(qwen3Next), mtpLayers(root, f), sparseAttention(root, f, mla));
    }

    /** DeepSeek's sparse attention where the config gives {@code index_topk}: its indexer reads the query latent, so MLA with a q_lora_rank. */
    private static SparseAttention sparseAttention(JsonNode root, Fields f, Mla mla) {
        if (!root.hasNonNull("index_topk")) {
            return null;
        }
        if (mla == null || mla.qLoraRank() == 0) {
            throw f.error("index_topk", "DeepSeek's sparse attention indexes from the queries' low-rank projection; expected it with"
                    + " kv_lora_rank and q_lora_rank (MLA)");
        }
        return new SparseAttention(f.required("index_n_heads"), f.required("index_head_dim"), f.required("index_topk"));
    }

    /** The config's query and key norm: Qwen3's per head; MiniMax-M2's use_qk_norm with its qk_norm_type. */
    private static QkNorm qkNorm(JsonNode root, Fields f) {
        if (root.path("use_qk_norm").asBoolean(false)) {
            String type = root.path("qk_norm_type").asText("per_head");
            return switch (type) {
                case "per_layer" -> QkNorm.ACROSS_HEADS;
                case "per_head" -> QkNorm.PER_HEAD;
                default -> throw f.error("qk_norm_type", "'" + type + "': expected per_layer (one norm over all heads) or per_head");
            };
        }
        return root.path("model_type").asText("").startsWith("qwen3") ? QkNorm.PER_HEAD : QkNorm.NONE;
    }

    /** The multi-token-prediction layers the checkpoint ships, under whichever keys its family names them. */
    private static int mtpLayers(JsonNode root, Fields f) {
        if (root.path("use_mtp").asBoolean(false)) {
            return f.optionalPositive("num_mtp_modules", 1) * f.optionalPositive("mtp_transformer_layers", 1);
        }
        return f.optional("num_nextn_predict_layers", f.optional("mtp_num_hidden_layers", 0));
    }

    /**
     * A MoE model's dense layers: the first {@code first_k_dense_replace}, those in {@code mlp_only_layers}, and those off the
     * MoE step, as transformers places them: Llama 4's {@code moe_layers} (by default every {@code
     * interleave_moe_layer_step}-th layer from step - 1), Qwen-MoE's every {@code decoder_sparse_step}-th.
     */
    private static Set<Integer> denseLayers(JsonNode root, Fields f, int layers, int firstDense) {
        int step = f.optionalPositive("interleave_moe_layer_step", f.optionalPositive("decoder_sparse_step", 1));
        Set<Integer> moe = layerList(root, f, "moe_layers", layers);
        if (moe.isEmpty()) {
            for (int l = step - 1; l < layers; l += step) {
                moe.add(l);
            }
        }
        Set<Integer> dense = new TreeSet<>();
        for (int l = 0; l < layers; l++) {
            if (l < firstDense || !moe.contains(l)) {
                dense.add(l);
            }
        }
        dense.addAll(layerList(root, f, "mlp_only_layers", layers));
        return Set.copyOf(dense);
    }

    /** A list of layer indices under {@code key}, each checked to be one of the model's layers; empty where the key is absent. */
    private static Set<Integer> layerList(JsonNode root, Fields f, String key, int layers) {
        JsonNode list = root.path(key);
        Set<Integer> out = new TreeSet<>();
        if (list.isMissingNode() || list.isNull()) {
            return out;
        }
        if (!list.isArray()) {
            throw f.error(key, "expected a list of layer indices, got " + list);
        }
        for (JsonNode l : list) {
            if (!l.canConvertToInt() || !l.isIntegralNumber() || l.intValue() < 0 || l.intValue() >= layers) {
                throw f.error(key, "expected layer indices from 0 to " + (layers - 1) + " (num_hidden_layers " + layers + "), got " + l);
            }
            out.add(l.intValue());
        }
        return out;
    }

    /**
     * Refuses a config whose {@code architectures} (its own, or its text_config's under a wrapper) names none that collsim
     * models; one that names none at all (collsim's catalogue, a hand-written config) is read by its fields.
     */
    private static void checkArchitecture(JsonNode wrapper, JsonNode root, Fields f) {
        List<String> named = new ArrayList<>();
        for (JsonNode config : wrapper == root ? List.of(root) : List.of(wrapper, root)) {
            config.path("architectures").forEach(a -> named.add(a.asText("")));
        }
        if (!named.isEmpty() && named.stream().noneMatch(ARCHITECTURES::contains)) {
            throw f.error("architectures", String.join(", ", named) + " is not a family collsim models; it models "
                    + String.join(", ", ARCHITECTURES));
        }
    }

    /**
     * The config's {@code layer_types}, or where it gives none, the list transformers derives: from {@code
     * full_attention_interval} (Qwen3-Next: every interval-th layer full attention, the others linear), or for Llama 4
     * with an {@code attention_chunk_size} from {@code no_rope_layers} (by default all but every {@code
     * no_rope_layer_interval}-th, 4: the rotary layers attend within their chunk, read as a window of the chunk's width:
     * exact up to one chunk of context, beyond it an upper bound, a chunked query reading the tokens since its chunk began).
     */
    private static JsonNode layerTypes(JsonNode root, Fields f, int layers, boolean llama4) {
        boolean chunked = llama4 && root.hasNonNull("attention_chunk_size");
        if (root.has("layer_types") || !(root.has("full_attention_interval") || chunked)) {
            return root.path("layer_types");
        }
        JsonNode noRope = root.path("no_rope_layers");
        boolean listed = noRope.isArray() && !noRope.isEmpty();
        if (chunked && listed && noRope.size() != layers) {
            throw f.error("no_rope_layers", "expected a list of " + layers + " flags, one a layer (num_hidden_layers)");
        }
        int interval = chunked ? f.optionalPositive("no_rope_layer_interval", 4) : f.required("full_attention_interval");
        String other = chunked ? "sliding_attention" : "linear_attention";
        ArrayNode types = JsonNodeFactory.instance.arrayNode();
        for (int l = 0; l < layers; l++) {
            boolean full = chunked && listed ? noRope.get(l).asInt(1) == 0 : (l + 1) % interval == 0;
            types.add(full ? "full_attention" : other);
        }
        return types;
    }

    /**
     * Shared experts beside the routed ones: DeepSeek's {@code n_shared_experts}, or Qwen's {@code
     * shared_expert_intermediate_size} in experts of the routed ones' size (Qwen3.5's one of 1,024).
     */
    private static int sharedExperts(Fields f, int moeIntermediate) {
        int width = moeIntermediate > 0 ? f.optional("shared_expert_intermediate_size", 0) : 0;
        if (width == 0) {
            return f.optional("n_shared_experts", 0);
        }
        if (width % moeIntermediate != 0) {
            throw f.error("shared_expert_intermediate_size", width + "; expected a multiple of moe_intermediate_size " + moeIntermediate);
        }
        return width / moeIntermediate;
    }

    /** The layers {@code layer_types} gives as {@code type}. */
    private static Set<Integer> layersOfType(JsonNode types, String type) {
        Set<Integer> layers = new TreeSet<>();
        for (int l = 0; l < types.size(); l++) {
            if (types.get(l).asText("").equals(type)) {
                layers.add(l);
            }
        }
        return layers;
    }

    /** The layers {@code types} names linear_attention, with the linear_* sizes; null if none is. */
    private static LinearAttention linearAttention(JsonNode types, Fields f) {
        JsonNode root = f.root();
        Set<Integer> linear = layersOfType(types, "linear_attention");
        if (linear.isEmpty()) {
            return null;
        }
        int keyHeads = f.required("linear_num_key_heads");
        int valueHeads = f.required("linear_num_value_heads");
        if (valueHeads % keyHeads != 0) {
            throw f.error("linear_num_value_heads", "expected a multiple of linear_num_key_heads " + keyHeads);
        }
        String ssm = root.path("mamba_ssm_dtype").asText("float32");
        int stateBytes = switch (ssm) {
            case "float32" -> 4;
            case "bfloat16", "float16" -> 2;
            default -> throw f.error("mamba_ssm_dtype", "'" + ssm + "'; expected float32, bfloat16 or float16");
        };
        return new LinearAttention(keyHeads, valueHeads, f.required("linear_key_head_dim"), f.required("linear_value_head_dim"),
                f.required("linear_conv_kernel_dim"), stateBytes, linear);
    }

    /** The sliding layers {@code types} names (one type a layer), with {@code widthKey}'s width; null if none slides. */
    private static SlidingWindow slidingWindow(JsonNode types, Fields f, int layers, String widthKey) {
        if (types.isMissingNode() || types.isNull()) {
            return null;
        }
        if (!types.isArray() || types.size() != layers) {
            throw f.error("layer_types", "expected a list of " + layers + " layer types, one a layer (num_hidden_layers)");
        }
        Set<Integer> sliding = layersOfType(types, "sliding_attention");
        return sliding.isEmpty() ? null : new SlidingWindow(f.required(widthKey), sliding);
    }

    /**
     * Tokens of KV cache layer {@code layer} keeps after {@code context} tokens: all of them, or its window's (vLLM's hybrid KV
     * cache manager and SGLang's SWA pool keep a sliding layer's window only), or none for a linear layer, which keeps a state.
     */
    public double attendedTokens(int layer, double context) {
        if (isLinear(layer)) {
            return 0;
        }
        int window = window(layer);
        return window > 0 ? Math.min(context, window) : context;
    }

    /** The window layer {@code layer} attends to, or 0 where it attends to the whole context. */
    public int window(int layer) {
        return sliding != null && sliding.layers().contains(layer) ? sliding.window() : 0;
    }

    /**
     * The most tokens a query of layer {@code layer} attends to: its window, or under sparse attention the indexer's top-k
     * (of a cache that keeps every token); 0 where it attends to all before it.
     */
    public int attended(int layer) {
        return sparse == null ? window(layer) : window(layer) > 0 ? Math.min(window(layer), sparse.topK()) : sparse.topK();
    }

    /** The sparse attention's index cache per token and layer (0 without one): replicated on every TP rank. */
    public double indexCacheBytesPerToken() {
        return sparse == null ? 0 : sparse.cacheBytesPerToken();
    }

    private static Precision checkpointPrecision(JsonNode root, Fields f) {
        JsonNode quant = root.path("quantization_config");
        String method = quant.path("quant_method").asText("").toLowerCase(Locale.ROOT);
        for (JsonNode group : quant.path("config_groups")) {
            // compressed-tensors: a group of 4-bit integer weights is Kimi-K2's INT4 experts; other narrow integers are not modelled.
            JsonNode weights = group.path("weights");
            if (weights.path("type").asText("").equals("int") && weights.path("num_bits").asInt(16) < 8) {
                if (weights.path("num_bits").asInt() == 4) {
                    return Precision.INT4;
                }
                throw f.error("quantization_config", weights.path("num_bits").asInt() + "-bit integer weights (" + method
                        + "): not modelled; collsim runs BF16, FP8, NVFP4, MXFP4 and INT4 checkpoints");
            }
        }
        // gpt-oss's mxfp4: its experts only; an NVFP4 checkpoint (ModelOpt's modelopt_fp4) quantises every linear layer.
        return method.equals("mxfp4") ? Precision.MXFP4 : method.contains("fp8") ? Precision.FP8 : method.contains("fp4") ? Precision.FP4
                : Precision.BF16;
    }

    /** This model in a checkpoint of another precision (a Hugging Face id's -FP8 or -FP4). */
    public ModelConfig withWeights(Precision checkpoint) {
        return new ModelConfig(name, hidden, layers, heads, kvHeads, headDim, intermediate, vocab, experts, expertsPerToken,
                moeIntermediate, sharedExperts, denseLayers, mla, qkNorm, checkpoint, maxContext, sliding, linear, attentionGate, mtpLayers, sparse);
    }

    /** This model with another context window (Llama 3.1's 128K on Llama 3's shapes). */
    public ModelConfig withMaxContext(int tokens) {
        return new ModelConfig(name, hidden, layers, heads, kvHeads, headDim, intermediate, vocab, experts, expertsPerToken,
                moeIntermediate, sharedExperts, denseLayers, mla, qkNorm, weights, tokens, sliding, linear, attentionGate, mtpLayers, sparse);
    }

    /** Whether layer {@code layer} is a Gated DeltaNet linear-attention layer. */
    public boolean isLinear(int layer) {
        return linear != null && linear.layers().contains(layer);
    }

    /** Layers that keep a KV cache: all but the linear ones. */
    public int cachedLayers() {
        return layers - (linear == null ? 0 : linear.layers().size());
    }

    /** The linear layers' state one sequence keeps on one of {@code tp} ranks, over all of them. */
    public double linearStateBytesPerRank(int tp) {
        return linear == null ? 0 : linear.layers().size() * linear.sequenceBytesPerRank(tp);
    }

    public boolean isMoe(int layer) {
        return experts > 0 && !denseLayers.contains(layer);
    }

    /** Parameters of layer {@code layer}'s attention on one of {@code tp} ranks: the projections in and out, or the linear layer's. */
    public double attentionParamsPerRank(int layer, int tp) {
        return isLinear(layer) ? linear.paramsPerRank(hidden, tp) : qkvParamsPerRank(tp) + outParamsPerRank(tp);
    }

    /**
     * The query, key and value projections one of {@code tp} ranks holds: heads split over the ranks,
     * KV heads too until there are fewer than ranks (then each rank keeps one), MLA's down-projections
     * on every rank; a gated attention's queries carry their gates.
     */
    public double qkvParamsPerRank(int tp) {
        double q = (double) heads / tp;
        if (mla == null) {
            return (double) hidden * (q * (attentionGate ? 2 : 1) + 2 * Math.max(1.0, (double) kvHeads / tp)) * headDim;
        }
        double qPath = mla.qLoraRank() > 0
                ? (double) hidden * mla.qLoraRank() + mla.qLoraRank() * q * (mla.nopeHeadDim() + mla.ropeHeadDim())
                : hidden * q * (mla.nopeHeadDim() + mla.ropeHeadDim());
        return qPath + (double) hidden * (mla.kvLoraRank() + mla.ropeHeadDim()) + mla.kvLoraRank() * q * (mla.nopeHeadDim() + mla.vHeadDim())
                + (sparse == null ? 0 : sparse.params(hidden, mla.qLoraRank()));
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
            sum += attentionParamsPerRank(l, 1) + (isMoe(l)
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
