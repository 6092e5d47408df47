package dev.collsim.core.collective;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * What one channel costs under one protocol on one GPU generation.
 *
 * @param channelRate   the most data one channel (one CTA) can move per second, whatever the links allow
 * @param sendOverhead  time the sending channel is busy after the last byte of each transfer
 *                      (barrier, memory fence, flag store) before it can start the next
 * @param notifyLatency time from the end of that overhead until the receiver sees the data
 *                      (flag propagation and polling), on top of the route's own latency
 */
public record ProtocolCosts(Rate channelRate, TimeSpan sendOverhead, TimeSpan notifyLatency) {}
