package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.Protocol;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclTuner;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclAlgo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class NvSwitchNodeTest {
    @Test
    void hgxH100HasEightGpusAt371GBpsPerDirection() {
        Communicator c = NvSwitchNode.build(SystemPreset.HGX_H100, 8);
        assertEquals(8, c.nRanks());
        assertEquals(8, c.fabric().devicesOfKind(DeviceKind.GPU).size());
        assertEquals(16, c.fabric().links().size());
        assertEquals(370.8, c.fabric().link(0).rate().gigabytesPerSecond(), 1e-9);
        assertEquals(24, c.ring().channels());
        assertEquals(2, c.fabric().route(c.rankDevices()[0], c.rankDevices()[7]).links().length);
    }

    @Test
    void aSubsetOfGpusAndItsLimits() {
        assertEquals(4, NvSwitchNode.build(SystemPreset.HGX_B200, 4).nRanks());
        InputException zero = assertThrows(InputException.class, () -> NvSwitchNode.build(SystemPreset.HGX_H100, 0));
        assertTrue(zero.getMessage().contains("expected 1 to 8"), zero.getMessage());
        assertThrows(InputException.class, () -> NvSwitchNode.build(SystemPreset.DGX_A100, 9));
        InputException unknown = assertThrows(InputException.class, () -> SystemPreset.byName("hgx-h900"));
        assertTrue(unknown.getMessage().contains("hgx-h100"), unknown.getMessage());
    }

    /** The catalogue's per-step latencies add up to NCCL's NVLink ring latencies on every generation. */
    @ParameterizedTest
    @EnumSource(SystemPreset.class)
    void perStepLatencyMatchesNcclsNvlinkTable(SystemPreset preset) {
        Communicator c = NvSwitchNode.build(preset, 8);
        long route = c.fabric().route(c.rankDevices()[0], c.rankDevices()[1]).latencyPicos();
        for (Protocol p : Protocol.values()) {
            var costs = c.protocolCosts().get(p);
            double step = (route + costs.sendOverhead().picos() + costs.notifyLatency().picos()) / 1e6;
            assertEquals(NcclTuner.hwLatencyMicros(LinkType.NVLINK, NcclAlgo.RING, p), step, 1e-9, p.label());
        }
    }
}
