package dev.collsim.core.nccl;

/**
 * What a collective's buffer holds and how it is reduced, where that changes what runs: RCCL's MSCCL algorithms take
 * only element counts that divide into their chunks, no FP8, bfloat16 only up to a size, and no averaging reduction
 * ({@link MscclAllPairs}).
 *
 * @param elementBytes bytes of one element
 * @param bfloat16     whether the elements are bfloat16
 * @param fp8          whether they are an 8-bit float
 * @param averages     whether the reduction averages ({@code ncclAvg}), which MSCCL's kernels do not run
 */
public record Payload(int elementBytes, boolean bfloat16, boolean fp8, boolean averages) {
    /** nccl-tests' default: float, summed. */
    public static final Payload FLOAT_SUM = new Payload(4, false, false, false);
    /** An inference engine's activations: bfloat16, summed. */
    public static final Payload BF16_SUM = new Payload(2, true, false, false);

    public Payload {
        if (elementBytes < 1) {
            throw new IllegalArgumentException("an element of " + elementBytes + " bytes");
        }
    }
}
