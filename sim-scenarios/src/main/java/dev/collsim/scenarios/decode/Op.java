package dev.collsim.scenarios.decode;

import dev.collsim.scenarios.decode.DecodeResult.KernelKind;
import java.util.ArrayList;
import java.util.List;

/**
 * One kernel of the decode step on one GPU: compute, or a collective, on a stream; it starts when
 * the kernel before it on its stream and everything it depends on have ended. Its time is what it
 * takes alone, launch included; a compute kernel that shares the GPU with a collective gets fewer
 * SMs and runs longer.
 */
final class Op {
    final String name;
    final int layer;
    final int microBatch;
    final KernelKind kind;
    final int stream;
    final double micros;
    final int sms;
    final long bytes;
    final double latencyMicros;
    /** The part of its time that is the per-kernel floor: the launch gap and the kernel's fixed time. */
    double floorMicros;
    /** Whether it is a kernel launch of its own (a fused kernel's later tiles and their reductions are not). */
    boolean launch = true;
    /** Its work at the roofline (peak rates, no fixed time): what the bound alone would give; 0 for collectives. */
    double rooflineMicros;
    /** A compute kernel's floating-point operations as the roofline counts them (tile padding aside); 0 for collectives. */
    double flops;
    /** A collective that runs on the fabric as simulated, or null (compute, or a fused kernel's share of a reduction). */
    CommModel.Cost collective;
    final List<Op> deps = new ArrayList<>();
    double start = Double.NaN;
    double end = Double.NaN;

    /**
     * @param layer         the layer it belongs to; -1 before the first, {@code layers} after the last
     * @param stream        0 for compute; collectives go on stream 1 when they may overlap, else 0
     * @param sms           SMs a collective's kernel holds while it runs (one per channel or block)
     * @param bytes         a collective's data sent per GPU, or a compute kernel's HBM traffic
     * @param latencyMicros the part of a collective's time that does not shrink with its size
     */
    Op(String name, int layer, int microBatch, KernelKind kind, int stream, double micros, int sms, long bytes, double latencyMicros) {
        this.name = name;
        this.layer = layer;
        this.microBatch = microBatch;
        this.kind = kind;
        this.stream = stream;
        this.micros = micros;
        this.sms = sms;
        this.bytes = bytes;
        this.latencyMicros = latencyMicros;
    }

    /**
     * Its time alone in engine picoseconds: a collective's launch gap and simulated time exactly, so
     * that the step on one clock ({@link OneClock}) meets it to the picosecond.
     */
    long picos() {
        return collective == null ? Math.round(micros * 1e6) : launchPicos() + collective.picos();
    }

    /** A collective's launch gap before its run starts, in picoseconds. */
    long launchPicos() {
        return Math.round(floorMicros * 1e6);
    }

    Op after(Op... others) {
        for (Op o : others) {
            if (o != null) {
                deps.add(o);
            }
        }
        return this;
    }
}
