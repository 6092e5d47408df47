package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The engines' own all-reduce kernels are picked by their own rules: vLLM's everywhere (its kernel on ROCm too), AITER's
 * for SGLang on ROCm, which switches to two-shot sooner and keeps messages to 64 MiB where vLLM hands them to RCCL
 * beyond 8 MiB.
 */
class CustomAllReduceRuleTest {
    @Test
    void sglangOnRocmRunsAitersRuleAndEveryOtherEngineVllms() {
        assertEquals(CustomAllReduceRule.AITER, CustomAllReduceRule.of(ServingEngine.SGLANG, true));
        assertEquals(CustomAllReduceRule.VLLM, CustomAllReduceRule.of(ServingEngine.SGLANG, false));
        assertEquals(CustomAllReduceRule.VLLM, CustomAllReduceRule.of(ServingEngine.VLLM, true));
    }

    @Test
    void theRulesSwitchKernelsAtTheirOwnSizes() {
        long kib96 = 96 << 10;
        assertTrue(CustomAllReduceRule.VLLM.oneShot(8, kib96));
        assertFalse(CustomAllReduceRule.AITER.oneShot(8, kib96));
        assertTrue(CustomAllReduceRule.AITER.oneShot(4, kib96));
        assertTrue(CustomAllReduceRule.AITER.oneShot(2, 32L << 20));
        assertTrue(CustomAllReduceRule.VLLM.tooLarge(16L << 20));
        assertFalse(CustomAllReduceRule.AITER.tooLarge(16L << 20));
        assertTrue(CustomAllReduceRule.AITER.tooLarge((64L << 20) + 1));
    }
}
