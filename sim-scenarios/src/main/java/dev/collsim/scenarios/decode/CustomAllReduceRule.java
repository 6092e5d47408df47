package dev.collsim.scenarios.decode;

/**
 * How an engine picks its own all-reduce kernel by group and message size (the one-shot or two-shot kernel, or none and
 * NCCL or RCCL beyond its largest message), for {@code --allreduce auto}.
 */
enum CustomAllReduceRule {
    /**
     * vLLM's {@code CustomAllreduce} ({@code custom_all_reduce.cuh}; the same on ROCm, where its Python side keeps the 8
     * MiB limit): one-shot on 2 GPUs, below 512 KiB on up to 4 and below 256 KiB on up to 8, else two-shot, below 8 MiB.
     * SGLang's own kernel on CUDA follows it.
     */
    VLLM(512 << 10, 256 << 10, 8L << 20),
    /**
     * AITER's custom all-reduce, which SGLang runs on ROCm by default ({@code dispatch_custom_allreduce}, {@code
     * SGLANG_USE_AITER_AR} true unless set): one-shot on 2 GPUs, below 160 KiB on up to 4 and below 80 KiB on up to 8,
     * else two-shot, up to 64 MiB (ROCm/aiter @ e4048607, {@code csrc/include/custom_all_reduce.cuh} and {@code
     * _DEFAULT_CAR_MAX_SIZE} in {@code aiter/dist/device_communicators/custom_all_reduce.py}).
     */
    AITER(160 << 10, 80 << 10, 64L << 20);

    private final long oneShotBelowOnFour;
    private final long oneShotBelowOnEight;
    private final long maxBytes;

    CustomAllReduceRule(long oneShotBelowOnFour, long oneShotBelowOnEight, long maxBytes) {
        this.oneShotBelowOnFour = oneShotBelowOnFour;
        this.oneShotBelowOnEight = oneShotBelowOnEight;
        this.maxBytes = maxBytes;
    }

    /** The rule of {@code engine} on a GPU that RCCL ({@code rocm}) or NCCL serves. */
    static CustomAllReduceRule of(ServingEngine engine, boolean rocm) {
        return rocm && engine == ServingEngine.SGLANG ? AITER : VLLM;
    }

    /** Whether a message of {@code bytes} is beyond the kernel's largest: NCCL or RCCL carries it. */
    boolean tooLarge(long bytes) {
        return bytes > maxBytes;
    }

    /** Whether {@code n} GPUs run the one-shot kernel for {@code bytes}, else the two-shot. */
    boolean oneShot(int n, long bytes) {
        return n == 2 || (n <= 4 && bytes < oneShotBelowOnFour) || bytes < oneShotBelowOnEight;
    }
}
