package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.Locale;

/**
 * The weight format of a decode run ({@code --dtype}), which sets the tensor-core rate, the bytes
 * read per parameter, the KV cache's element and what an expert-parallel dispatch sends.
 * Activations are reduced in BF16 whatever the weights.
 *
 * @param bits            the tensor-core format (INT4 weights are widened to BF16 in the kernel: W4A16)
 * @param bytesPerParam   NVFP4 adds an FP8 scale per 16 values: 4.5 bits; MXFP4 an E8M0 scale per 32: 4.25 bits; INT4 a BF16
 *                        scale per 32 (Kimi-K2's group_size)
 * @param kvBytes         per cached element when the KV cache is kept in this format ({@code --kv-dtype})
 * @param dispatchBytes   per activation an expert-parallel dispatch sends (FP8 dispatch, as DeepSeek does, below BF16)
 */
public enum Precision {
    BF16(16, 2.0, 2, 2),
    FP8(8, 1.0, 1, 1),
    FP4(4, 0.5625, 1, 1),
    /**
     * INT4 routed experts, everything else in BF16, as Kimi-K2's compressed-tensors checkpoints keep them (their quantization
     * config's ignore list: attention, shared experts and dense MLPs stay BF16); the experts run as W4A16 grouped GEMMs
     * (vLLM's Marlin MoE), math at the BF16 rate.
     */
    INT4(16, 0.5625, 2, 2),
    /**
     * MXFP4 routed experts, everything else in BF16, as gpt-oss is published (its quantization_config's
     * modules_to_not_convert: attention, router, embedding and LM head); the experts run as W4A16 grouped GEMMs (OpenAI's
     * Triton MXFP4 MoE in vLLM on Hopper), math at the BF16 rate, priced with the BF16 MoE constants as INT4's are.
     * Blackwell's engines run them against MXFP8 activations at the FP8 rate instead: there the BF16 rate is an upper bound
     * where the experts' math binds. aiconfigurator's W4A16 MXFP4 tables (vLLM 0.24) time vLLM's kernel slower than those
     * constants, the serving runs of gpt-oss (vLLM 0.18) decode faster than this model: the two disagree, so no W4A16 set
     * is fitted (docs/decode.md).
     */
    MXFP4(16, 0.53125, 2, 2);

    /** Activations on the wire and in all-reduces. */
    public static final int ACTIVATION_BYTES = 2;

    private final int bits;
    private final double bytesPerParam;
    private final int kvBytes;
    private final int dispatchBytes;

    Precision(int bits, double bytesPerParam, int kvBytes, int dispatchBytes) {
        this.bits = bits;
        this.bytesPerParam = bytesPerParam;
        this.kvBytes = kvBytes;
        this.dispatchBytes = dispatchBytes;
    }

    public int bits() {
        return bits;
    }

    public double bytesPerParam() {
        return bytesPerParam;
    }

    public int kvBytes() {
        return kvBytes;
    }

    public int dispatchBytes() {
        return dispatchBytes;
    }

    /**
     * Bytes per parameter of the weights outside the routed experts: a W4A16 format (narrow weights under BF16 math: INT4's
     * and MXFP4's checkpoints) quantises the experts only and keeps the rest in BF16.
     */
    public double denseBytesPerParam() {
        return bits == 16 && bytesPerParam < ACTIVATION_BYTES ? ACTIVATION_BYTES : bytesPerParam;
    }

    /** Whether a GEMM's activations are quantised for it (FP8 and FP4 weights take FP8 or FP4 activations; BF16 and W4A16 none). */
    public boolean quantizesActivations() {
        return bits < 16;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Precision fromName(String name) {
        return fromName(name, "--dtype");
    }

    /** A format named on {@code flag}. */
    public static Precision fromName(String name, String flag) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InputException(flag + " '" + name + "': expected " + (flag.equals("--dtype") ? "bf16, fp8, fp4, mxfp4 or int4" : "auto, bf16 or fp8"));
        }
    }
}
