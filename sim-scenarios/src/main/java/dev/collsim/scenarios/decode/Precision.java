package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.Locale;

/**
 * The weight format of a decode run ({@code --dtype}), which sets the tensor-core rate, the bytes
 * read per parameter, the KV cache's element and what an expert-parallel dispatch sends.
 * Activations are reduced in BF16 whatever the weights.
 *
 * @param bits            the tensor-core format
 * @param bytesPerParam   NVFP4 adds an FP8 scale per 16 values: 4.5 bits
 * @param kvBytes         per cached element when the KV cache is kept in this format ({@code --kv-dtype})
 * @param dispatchBytes   per activation an expert-parallel dispatch sends (FP8 dispatch, as DeepSeek does, below BF16)
 */
public enum Precision {
    BF16(16, 2.0, 2, 2),
    FP8(8, 1.0, 1, 1),
    FP4(4, 0.5625, 1, 1);

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
            throw new InputException(flag + " '" + name + "': expected " + (flag.equals("--dtype") ? "bf16, fp8 or fp4" : "auto, bf16 or fp8"));
        }
    }
}
