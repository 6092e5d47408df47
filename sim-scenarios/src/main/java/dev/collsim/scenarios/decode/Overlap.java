package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.List;
import java.util.Locale;

/** {@code --overlap}: how communication is scheduled against compute. */
public enum Overlap {
    /** One stream: every collective waits for the kernel before it and holds up the one after. */
    NONE,
    /**
     * Two micro-batches of half the batch, issued alternately, each micro-batch's collectives on a
     * stream of its own: one micro-batch's collective runs under the other's compute (SGLang's
     * two-batch overlap, DeepSeek's dual micro-batch), and both micro-batches' transfers can be in
     * flight at once, as DeepEP's low-latency kernels send in the background and wait only in their
     * receive hook; where they share links they contend. Each micro-batch reads the weights again.
     */
    TWO_BATCH,
    /**
     * Each GEMM that feeds a collective runs in tiles, each tile's share of the collective starting
     * as the tile ends (Flux, TransformerEngine userbuffers, PyTorch async TP).
     */
    FUSED;

    /** The GPU's streams under this mode, by number: compute first, then communication. */
    public List<String> streamNames() {
        return switch (this) {
            case NONE -> List.of("the stream (kernels and collectives)");
            case TWO_BATCH -> List.of("compute stream", "communication stream of micro-batch 0", "communication stream of micro-batch 1");
            case FUSED -> List.of("compute stream", "communication stream");
        };
    }

    /** The stream a micro-batch's collectives go on. */
    int commStream(int microBatch) {
        return switch (this) {
            case NONE -> 0;
            case TWO_BATCH -> 1 + microBatch;
            case FUSED -> 1;
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Overlap fromName(String name) {
        for (Overlap o : values()) {
            if (o.label().equalsIgnoreCase(name)) {
                return o;
            }
        }
        throw new InputException("--overlap '" + name + "': expected none, two-batch or fused");
    }
}
