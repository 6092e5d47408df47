package dev.collsim.core.collective;

import dev.collsim.core.input.InputException;

/**
 * NCCL's wire protocols. Each trades bandwidth for latency: LL sends 8 bytes of data in every
 * 16-byte line (a flag in the other 8), LL128 sends 120 of every 128 bytes, Simple sends data
 * alone but synchronises with a memory fence after every slice. Buffer geometry follows NCCL's
 * defaults ({@code src/init.cc}, {@code src/include/device.h}): 8 steps per connection.
 */
public enum Protocol {
    LL("LL", 0.5, 32 * 1024, 16, 512),
    LL128("LL128", 120.0 / 128.0, 576_000, 1920, 640),
    SIMPLE("Simple", 1.0, 512 * 1024, 512, 512);

    /** Slots of each connection's buffer ({@code NCCL_STEPS}). */
    public static final int STEPS = 8;

    private final String label;
    private final double wireEfficiency;
    private final long stepDataBytes;
    private final long grainBytes;
    private final int maxThreads;

    Protocol(String label, double wireEfficiency, long stepDataBytes, long grainBytes, int maxThreads) {
        this.label = label;
        this.wireEfficiency = wireEfficiency;
        this.stepDataBytes = stepDataBytes;
        this.grainBytes = grainBytes;
        this.maxThreads = maxThreads;
    }

    /** Threads per channel at full rate ({@code NCCL_*_MAX_NTHREADS}). */
    public int maxThreads() {
        return maxThreads;
    }

    public String label() {
        return label;
    }

    /** Data bytes per wire byte. */
    public double wireEfficiency() {
        return wireEfficiency;
    }

    /** Data bytes one buffer step holds (Simple 512 KiB, LL 32 KiB, LL128 576,000 B). */
    public long stepDataBytes() {
        return stepDataBytes;
    }

    /** Granularity of the per-channel split of a buffer (NCCL's {@code ncclProtoGrainSize}). */
    public long grainBytes() {
        return grainBytes;
    }

    public static Protocol fromName(String name) {
        for (Protocol p : values()) {
            if (p.label.equalsIgnoreCase(name)) {
                return p;
            }
        }
        throw new InputException("unknown protocol '" + name + "'; expected LL, LL128 or Simple");
    }
}
