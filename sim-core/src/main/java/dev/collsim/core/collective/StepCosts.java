package dev.collsim.core.collective;

import dev.collsim.core.units.TimeSpan;

/**
 * What a collective's steps cost.
 *
 * @param protocol      one channel's costs under the schedule's protocol
 * @param nvls          what an NVLS step costs, or null where the schedule has none
 * @param sharp         what an in-network (SHARP) all-reduce costs, or null where the schedule has none
 * @param launchLatency time from the start until the kernels begin work
 */
public record StepCosts(ProtocolCosts protocol, NvlsCosts nvls, NvlsCosts sharp, TimeSpan launchLatency) {
    public static StepCosts of(ProtocolCosts protocol, TimeSpan launchLatency) {
        return new StepCosts(protocol, null, null, launchLatency);
    }
}
