package dev.collsim.core.fabric;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * A directed link: a full-duplex cable is two of them. {@code rate} is the effective data rate in
 * this one direction; {@code latency} is what a byte takes to cross it; {@code linkClass} names it for
 * reports (e.g. {@code NVLink4 x18}); {@code technology} and {@code lanes} (links or lanes bundled
 * in it, 18 for that class) are what the model asks of it.
 */
public record Link(int id, int from, int to, Rate rate, TimeSpan latency, String linkClass, LinkTechnology technology, int lanes) {
    public Link {
        if (lanes < 1) {
            throw new IllegalArgumentException("a link has at least one lane");
        }
    }

    /** Whether the collectives library counts it as NVLink: NVLink, or AMD's xGMI, which RCCL types as NVLink. */
    public boolean nvlink() {
        return technology == LinkTechnology.NVLINK || technology == LinkTechnology.XGMI;
    }
}
