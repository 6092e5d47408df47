package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class SpeculationTest {
    private static DecodeSpec llama(int batch, Speculation s) {
        return new DecodeSpec(ModelConfig.load("llama-3-8b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 1, 1, 1, 1, batch, 4096,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true, ServingEngine.VLLM, null, null, s);
    }

    private static DecodeSpec deepseek(int batch, Speculation s) {
        return new DecodeSpec(ModelConfig.load("deepseek-v3"), DecodeSystem.preset("hgx-h200"), OptionalInt.empty(), 8, 1, 1, 1, batch, 4096,
                Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true, ServingEngine.SGLANG, null, null, s);
    }

    @Test
    void flagsParseAndAcceptanceSolvesThePerDraftChance() {
        Speculation mtp = Speculation.parse("mtp:3", 2.4);
        assertEquals(new Speculation(Speculation.Method.MTP, 3, 2.4), mtp);
        assertEquals(Speculation.Method.EAGLE, Speculation.parse("EAGLE3:2", 1.5).method());
        assertEquals(Speculation.NONE, Speculation.parse("none", null));
        assertEquals(4, mtp.verified());
        // 1 + a + a^2 + a^3 = 2.4 at a = 0.6232...: the mean of the tokens kept a step is the acceptance.
        double a = mtp.perTokenAcceptance();
        assertEquals(2.4, 1 + a + a * a + a * a * a, 1e-12);
        assertEquals(0, Speculation.parse("mtp:3", 1.0).perTokenAcceptance(), 1e-12);
        assertEquals(1, Speculation.parse("mtp:3", 4.0).perTokenAcceptance(), 1e-12);
        assertTrue(assertThrows(InputException.class, () -> Speculation.parse("mtp:3", 4.5)).getMessage()
                .contains("expected tokens a step from 1 to drafts + 1 = 4"));
        assertTrue(assertThrows(InputException.class, () -> Speculation.parse("mtp:3", null)).getMessage().contains("give --accept"));
        assertTrue(assertThrows(InputException.class, () -> Speculation.parse("mtp3", 2.0)).getMessage().contains("expected none, mtp:K"));
        assertTrue(assertThrows(InputException.class, () -> Speculation.parse(null, 2.0)).getMessage().contains("acts on speculative decoding"));
    }

    /**
     * Llama 3 8B, batch 4, EAGLE-3 with 3 drafts: the verification puts 4 x 4 = 16 tokens through every GEMM but reads each
     * sequence's cache once; the draft layer then runs 3 passes, the first over the 16 verified tokens, each ending in the
     * head's 32,000-token LM head. Bytes worked by hand (BF16): qkv_proj 4,096 x 6,144 x 2 of weights plus 16 rows of
     * (4,096 + 6,144) x 2; the cache 4 x 4,096 tokens x 8 KV heads x 2 x 128 x 2; fc 3 x 4,096 x 4,096 x 2 plus 16 (then 4)
     * rows of (12,288 + 4,096) x 2; the draft LM head 4,096 x 32,000 x 2 plus 4 rows of (4,096 + 32,000) x 2; the
     * verification's LM head 4,096 x 128,256 x 2 plus 16 rows of (4,096 + 128,256) x 2.
     */
    @Test
    void verificationRunsEveryVerifiedTokenAndReadsTheCacheOnce() {
        DecodeResult plain = DecodeStep.run(llama(4, Speculation.NONE));
        DecodeResult spec = DecodeStep.run(llama(4, Speculation.parse("eagle:3", 2.0)));
        assertEquals(4096L * 6144 * 2 + 4 * 10240 * 2, bytes(plain.layers().get(0).spans(), "qkv_proj"));
        assertEquals(4096L * 6144 * 2 + 16 * 10240 * 2, bytes(spec.layers().get(0).spans(), "qkv_proj"));
        assertEquals(4L * 4096 * 8 * 2 * 128 * 2, bytes(plain.layers().get(0).spans(), "attention"));
        assertEquals(4L * 4096 * 8 * 2 * 128 * 2, bytes(spec.layers().get(0).spans(), "attention"));
        List<DecodeResult.Span> after = spec.timeline().afterLayers();
        assertEquals(4096L * 128256 * 2 + 16 * (4096 + 128256) * 2, bytes(after, "lm_head"));
        List<Long> fc = after.stream().filter(s -> s.name().equals("draft_fc")).map(DecodeResult.Span::bytes).toList();
        assertEquals(List.of(3L * 4096 * 4096 * 2 + 16 * 16384 * 2, 3L * 4096 * 4096 * 2 + 4 * 16384 * 2, 3L * 4096 * 4096 * 2 + 4 * 16384 * 2), fc);
        List<Long> head = after.stream().filter(s -> s.name().equals("draft_lm_head")).map(DecodeResult.Span::bytes).toList();
        assertEquals(List.of(4096L * 32000 * 2 + 4 * 36096 * 2, 4096L * 32000 * 2 + 4 * 36096 * 2, 4096L * 32000 * 2 + 4 * 36096 * 2), head);
        // Each pass runs one dense decoder layer: its attention reads the draft layer's own cache, as long as the context.
        assertEquals(3, after.stream().filter(s -> s.name().equals("draft_attention")).count());
        assertEquals(3, after.stream().filter(s -> s.name().equals("draft_gate_up_proj")).count());
        assertEquals(4L * 4096 * 8 * 2 * 128 * 2, bytes(after, "draft_attention"));
        assertTrue(plain.timeline().afterLayers().stream().noneMatch(s -> s.name().startsWith("draft_")));
    }

    /**
     * Acceptance 1 (every draft rejected): a step keeps one token a sequence, as plain decoding does, so its inter-token
     * latency is the whole step; that step pays for the drafts and the extra verified tokens, so it is slower than plain
     * decoding's. At 2.4 tokens a step the same step is spread over 2.4 tokens.
     */
    @Test
    void acceptanceOneKeepsOneTokenAStep() {
        DecodeResult plain = DecodeStep.run(deepseek(8, Speculation.NONE));
        DecodeResult rejected = DecodeStep.run(deepseek(8, Speculation.parse("mtp:3", 1.0)));
        DecodeResult accepted = DecodeStep.run(deepseek(8, Speculation.parse("mtp:3", 2.4)));
        assertEquals(plain.step().ms(), plain.itl().ms(), 0);
        assertEquals(rejected.step().ms(), rejected.itl().ms(), 0);
        assertEquals(8 * 1000 / rejected.step().ms(), rejected.tokensPerS(), 1e-9);
        assertTrue(rejected.step().ms() > plain.step().ms() + rejected.draftTime().ms(),
                rejected.step().ms() + " vs " + plain.step().ms() + " + drafts " + rejected.draftTime().ms());
        assertEquals(rejected.step().ms(), accepted.step().ms(), 0);
        assertEquals(accepted.step().ms() / 2.4, accepted.itl().ms(), 1e-12);
    }

    /**
     * DeepSeek-V3's MTP module on the last stage of TP 8 in FP8 (a byte a weight): one more MoE layer (its MLA's projections
     * 21,954,560 and output 14,680,064 weights a rank; the shared expert's 1/8, 5,505,024, and the router's 1,835,008; the 256
     * routed experts' 1/8, 1,409,286,144) and eh_proj, 2 x 7,168 x 7,168 = 102,760,448, replicated: 1,556,021,248 bytes; and
     * a layer of latent cache, 4,096 tokens x 576 x 2 bytes, for the one sequence.
     */
    @Test
    void theMtpModuleAddsALayerOfWeightsAndCache() {
        MemoryPlan plain = DecodeStep.run(deepseek(1, Speculation.NONE)).memory();
        MemoryPlan mtp = DecodeStep.run(deepseek(1, Speculation.parse("mtp:2", 2.0))).memory();
        assertEquals(1_556_021_248.0, mtp.weightsBytes() - plain.weightsBytes(), 1);
        assertEquals(4096.0 * 576 * 2, mtp.kvBytes() - plain.kvBytes(), 1e-6);
        InputException e = assertThrows(InputException.class, () -> llama(1, Speculation.parse("mtp:2", 2.0)));
        assertTrue(e.getMessage().contains("llama-3-8b's checkpoint has no multi-token prediction layers"), e.getMessage());
    }

    /** A prompt's forward ends with one pass of the draft layer over the prompt, the draft's LM head on its last token. */
    @Test
    void aPromptsForwardRunsTheDraftLayerOverThePrompt() {
        PrefillResult plain = Prefill.run(llama(1, Speculation.NONE).withTokens(1, 2048), 2048, 1, 0);
        PrefillResult spec = Prefill.run(llama(1, Speculation.parse("eagle:3", 2.6)).withTokens(1, 2048), 2048, 1, 0);
        List<DecodeResult.Span> after = spec.lastForward().timeline().afterLayers();
        assertEquals(3L * 4096 * 4096 * 2 + 2048 * 16384 * 2, bytes(after, "draft_fc"));
        assertEquals(4096L * 32000 * 2 + 36096 * 2, bytes(after, "draft_lm_head"));
        assertEquals(1, after.stream().filter(s -> s.name().equals("draft_attention")).count());
        assertTrue(spec.ttft().ms() > plain.ttft().ms());
    }

    private static long bytes(List<DecodeResult.Span> spans, String name) {
        return spans.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().bytes();
    }
}
