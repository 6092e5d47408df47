package dev.collsim.scenarios.decode;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The names people give the catalogue's models: the docs' and the published runs' names of later
 * checkpoints of one architecture (DeepSeek-R1 is DeepSeek-V3's config trained further; Llama 3.1
 * and 3.3 change the rotary scaling and the context window, not a shape), and Hugging Face ids such
 * as {@code meta-llama/Llama-3.1-70B-Instruct} or {@code nvidia/DeepSeek-R1-FP4}.
 */
public final class ModelNames {
    private ModelNames() {}

    /**
     * The catalogue model a name describes, the precision its checkpoint is published in when the name says (-FP8, -FP4),
     * and its context window where it differs from the catalogue model's (Llama 3.1 and later: 128K tokens).
     */
    public record Resolved(String catalogueName, Optional<Precision> checkpoint, Optional<Integer> context) {}

    /** Llama 3.1, 3.2 and 3.3 take 131,072 tokens (their config.json's max_position_embeddings); Llama 3, 8,192. */
    private static final Pattern LLAMA_3_1_ON = Pattern.compile("llama-?3\\.[1-9]");
    private static final int LLAMA_3_1_CONTEXT = 131_072;

    /** Families of the catalogue, in the order they are tried. */
    private static final List<Map.Entry<Pattern, String>> FAMILIES = List.of(
            Map.entry(Pattern.compile("deepseek-?(r1|v3)"), "deepseek-v3"),
            Map.entry(Pattern.compile("llama-?3(\\.\\d)?-?405b"), "llama-3.1-405b"),
            Map.entry(Pattern.compile("llama-?3(\\.\\d)?-?70b"), "llama-3-70b"),
            Map.entry(Pattern.compile("llama-?3(\\.\\d)?-?8b"), "llama-3-8b"),
            Map.entry(Pattern.compile("mixtral-?8x7b"), "mixtral-8x7b"),
            Map.entry(Pattern.compile("mixtral-?8x22b"), "mixtral-8x22b"),
            Map.entry(Pattern.compile("qwen3-?235b"), "qwen3-235b-a22b"));

    private static final Pattern FP8 = Pattern.compile("-fp8(-|$)");
    private static final Pattern FP4 = Pattern.compile("-(nv|mx)?fp4(-|$)");

    /** The catalogue model a name (any case, spaces or dashes, with or without the Hugging Face organisation) describes. */
    public static Optional<Resolved> resolve(String name) {
        String n = name.toLowerCase(Locale.ROOT).trim().replace(' ', '-');
        for (Map.Entry<Pattern, String> family : FAMILIES) {
            if (family.getKey().matcher(n).find()) {
                Optional<Precision> checkpoint = FP8.matcher(n).find() ? Optional.of(Precision.FP8)
                        : FP4.matcher(n).find() ? Optional.of(Precision.FP4) : Optional.empty();
                Optional<Integer> context = LLAMA_3_1_ON.matcher(n).find() ? Optional.of(LLAMA_3_1_CONTEXT) : Optional.empty();
                return Optional.of(new Resolved(family.getValue(), checkpoint, context));
            }
        }
        return Optional.empty();
    }
}
