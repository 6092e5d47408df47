package dev.collsim.core.fabric;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * A directed link: a full-duplex cable is two of them. {@code rate} is the effective data rate in
 * this one direction; {@code latency} is what a byte takes to cross it; {@code linkClass} names the
 * technology (e.g. {@code NVLink4 x18}) for reports and what-if scaling.
 */
public record Link(int id, int from, int to, Rate rate, TimeSpan latency, String linkClass) {}
