package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.Locale;

/** {@code --allreduce}: which kernel reduces a TP group's activations. */
public enum AllReduceKind {
    /** As vLLM chooses: its custom one-shot or two-shot kernel inside an NVLink domain up to 8 MiB, else NCCL. */
    AUTO,
    /** NCCL's own choice of algorithm and protocol. */
    NCCL,
    ONESHOT,
    TWOSHOT,
    /** NVLink SHARP: NCCL's NVLS algorithm. */
    NVLS;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static AllReduceKind fromName(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InputException("--allreduce '" + name + "': expected auto, nccl, oneshot, twoshot or nvls");
        }
    }
}
