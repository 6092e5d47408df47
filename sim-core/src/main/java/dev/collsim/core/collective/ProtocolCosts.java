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
 * @param netLatency    added to a step whose route leaves through a network card: NCCL's network
 *                      transport hands each step to a proxy thread that posts it to the NIC and
 *                      polls for its completion
 * @param proxyPost     time the sender's proxy thread spends posting one step to the NIC (NCCL's
 *                      {@code NCCL_NET_OVERHEAD}); one thread serves all of a GPU's network steps, so
 *                      they queue behind each other. It delays the step's arrival, not the wire: the
 *                      proxy posts a step while the NIC still sends the one before (steps staged
 *                      through host memory, without GPUDirect, are not charged yet)
 * @param proxyReceive  time the receiver's proxy thread spends on one arrived step before the GPU may
 *                      see it (under Simple, the flush of what the NIC wrote)
 * @param localCopyRate what one channel's threads store per second into their own rank's memory (a ring step's local
 *                      copy, {@link Schedule#copiesLocally}): plain stores whatever the protocol, at a Simple channel's rate
 */
public record ProtocolCosts(Rate channelRate, TimeSpan sendOverhead, TimeSpan notifyLatency, TimeSpan netLatency,
                            TimeSpan proxyPost, TimeSpan proxyReceive, Rate localCopyRate) {

    /** Costs of a protocol whose channel copies locally at its own rate. */
    public ProtocolCosts(Rate channelRate, TimeSpan sendOverhead, TimeSpan notifyLatency, TimeSpan netLatency,
                         TimeSpan proxyPost, TimeSpan proxyReceive) {
        this(channelRate, sendOverhead, notifyLatency, netLatency, proxyPost, proxyReceive, channelRate);
    }

    /** The same costs with local copies at {@code rate} (a copy engine's, where no kernel thread copies). */
    public ProtocolCosts withLocalCopyRate(Rate rate) {
        return new ProtocolCosts(channelRate, sendOverhead, notifyLatency, netLatency, proxyPost, proxyReceive, rate);
    }

    /** Costs of a protocol whose network steps cost their proxies nothing. */
    public ProtocolCosts(Rate channelRate, TimeSpan sendOverhead, TimeSpan notifyLatency, TimeSpan netLatency) {
        this(channelRate, sendOverhead, notifyLatency, netLatency, TimeSpan.ZERO, TimeSpan.ZERO);
    }

    /** Costs of a protocol that never crosses a network card. */
    public ProtocolCosts(Rate channelRate, TimeSpan sendOverhead, TimeSpan notifyLatency) {
        this(channelRate, sendOverhead, notifyLatency, TimeSpan.ZERO);
    }
}
