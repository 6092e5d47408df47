package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.Locale;

/**
 * Speculative decoding as vLLM, SGLang and TensorRT-LLM run it with one draft layer: each step the target model verifies,
 * for every sequence, its last token and {@code drafts} drafted ones in one forward ({@code drafts + 1} query tokens a
 * sequence), and keeps on average {@code acceptance} of them (the verified token and the drafts accepted before the first
 * rejected one: SGLang's "accept length", 1 to {@code drafts + 1}). Then the draft layer proposes the next step's tokens:
 * one pass over every sequence's {@code drafts + 1} verified positions (its hidden states and KV cache for the tokens just
 * accepted, and the first draft token), then {@code drafts - 1} passes of one token each (SGLang's EAGLE worker's draft
 * extend and draft steps, vLLM's EAGLE proposer, TensorRT-LLM's MTP in its Eagle mode all run this chain).
 *
 * @param method     where the draft layer comes from
 * @param drafts     tokens drafted a step ({@code num_speculative_tokens}, SGLang's speculative_num_steps); 0: no speculation
 * @param acceptance tokens a step keeps on average, the verified one included
 */
public record Speculation(Method method, int drafts, double acceptance) {
    /** Plain decoding: one token a step, nothing drafted. */
    public static final Speculation NONE = new Speculation(Method.NONE, 0, 1);

    /** Where the draft layer comes from. */
    public enum Method {
        NONE,
        /**
         * The checkpoint's multi-token-prediction module (DeepSeek-V3's, GLM's, Qwen3.5's, MiniMax-M2's): a decoder layer of the
         * model's own kind (MoE where the model is) behind two norms and a projection of the token's embedding and the last
         * hidden state (eh_proj, 2 x hidden to hidden), sharing the model's LM head.
         */
        MTP,
        /**
         * An EAGLE-3 head trained for the model: one dense decoder layer of the model's width (its attention, a gated MLP of
         * its intermediate_size) behind a projection of three of the target's hidden states (fc, 3 x hidden to hidden), with
         * an LM head over a draft vocabulary of {@link #EAGLE_DRAFT_VOCAB} tokens (the published heads' draft_vocab_size).
         */
        EAGLE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The draft vocabulary of the EAGLE-3 heads published for Llama, Qwen and gpt-oss targets. */
    public static final int EAGLE_DRAFT_VOCAB = 32_000;

    public Speculation {
        if (method == Method.NONE ? drafts != 0 || acceptance != 1 : drafts < 1) {
            throw new InputException("--spec " + method.label() + ":" + drafts + ": expected at least one draft token a step");
        }
        if (!(acceptance >= 1 && acceptance <= drafts + 1)) {
            throw new InputException(String.format(Locale.ROOT, "--accept %s: expected tokens a step from 1 to drafts + 1 = %d (the"
                    + " verified token and up to %d accepted drafts)", trim(acceptance), drafts + 1, drafts));
        }
    }

    /**
     * {@code --spec METHOD:DRAFTS} with {@code --accept A}, or none: "none" (or no --spec) is plain decoding, and --accept
     * then has nothing to act on.
     */
    public static Speculation parse(String spec, Double accept) {
        if (spec == null || spec.equalsIgnoreCase("none")) {
            if (accept != null) {
                throw new InputException("--accept " + trim(accept) + ": acts on speculative decoding; give --spec mtp:K or eagle:K");
            }
            return NONE;
        }
        String[] parts = spec.toLowerCase(Locale.ROOT).split(":", -1);
        Method method = parts.length != 2 ? null : switch (parts[0]) {
            case "mtp" -> Method.MTP;
            case "eagle", "eagle3" -> Method.EAGLE;
            default -> null;
        };
        int drafts;
        try {
            drafts = method == null ? -1 : Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            drafts = -1;
        }
        if (method == null || drafts < 1) {
            throw new InputException("--spec '" + spec + "': expected none, mtp:K or eagle:K with K draft tokens a step (mtp:3)");
        }
        if (accept == null) {
            throw new InputException("--spec " + spec + ": give --accept, the tokens a step keeps on average (1 to " + (drafts + 1)
                    + "; SGLang's and vLLM's logs print it as the accept length)");
        }
        return new Speculation(method, drafts, accept);
    }

    /** Whether a draft layer runs at all. */
    public boolean speculates() {
        return method != Method.NONE;
    }

    /** Query tokens each sequence puts through the target model a step: its last token and the drafts. */
    public int verified() {
        return drafts + 1;
    }

    /**
     * The chance that a draft token is accepted, given the one before it was, under the i.i.d. acceptance of Leviathan,
     * Kalman and Matias (arXiv 2211.17192): a step keeps 1 + a + a^2 + ... + a^drafts tokens on average, which this
     * solves for a from {@link #acceptance} (by bisection: the sum rises with a from 1 to drafts + 1).
     */
    public double perTokenAcceptance() {
        double lo = 0;
        double hi = 1;
        for (int i = 0; i < 60; i++) {
            double mid = (lo + hi) / 2;
            if (expectedTokens(mid) < acceptance) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    private double expectedTokens(double a) {
        double sum = 0;
        double term = 1;
        for (int k = 0; k <= drafts; k++) {
            sum += term;
            term *= a;
        }
        return sum;
    }

    /** In words, for a report's setup line. */
    public String describe() {
        return speculates() ? String.format(Locale.ROOT, "%s, %d draft token%s a step, %s kept on average", method.label(), drafts,
                drafts == 1 ? "" : "s", trim(acceptance)) : "none";
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
