package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.Locale;

/** {@code --overlap}: how communication is scheduled against compute. */
public enum Overlap {
    /** One stream: every collective waits for the kernel before it and holds up the one after. */
    NONE,
    /**
     * Two micro-batches of half the batch, issued alternately, collectives on their own stream: one
     * micro-batch's collective runs under the other's compute (SGLang's two-batch overlap, DeepSeek's
     * dual micro-batch). Each micro-batch reads the weights again.
     */
    TWO_BATCH,
    /**
     * Each GEMM that feeds a collective runs in tiles, each tile's share of the collective starting
     * as the tile ends (Flux, TransformerEngine userbuffers, PyTorch async TP).
     */
    FUSED;

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
