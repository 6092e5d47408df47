package dev.collsim.core.collective;

import dev.collsim.core.fabric.Fabric;
import java.util.Arrays;

/**
 * Where a collective's ranks sit on a fabric.
 *
 * @param fabric        the devices and links
 * @param devices       fabric device of each rank's GPU, in rank order
 * @param nvlsSwitches  the NVLS switch each rank's GPU hangs off, or -1
 * @param sharpSwitches the SHARP switch each rank's NIC reaches, or null where the network cannot reduce
 * @param host          where transfers the GPUs cannot make directly are staged, or null
 */
public record RankPlacement(Fabric fabric, int[] devices, int[] nvlsSwitches, int[] sharpSwitches, HostMemory host) {
    public RankPlacement {
        devices = devices.clone();
        nvlsSwitches = nvlsSwitches.clone();
        sharpSwitches = sharpSwitches == null ? null : sharpSwitches.clone();
        if (nvlsSwitches.length != devices.length || (sharpSwitches != null && sharpSwitches.length != devices.length)) {
            throw new IllegalArgumentException("one switch entry per rank");
        }
    }

    /** Ranks on {@code devices} with no NVLS or SHARP switch and nothing staged through host memory. */
    public static RankPlacement of(Fabric fabric, int... devices) {
        int[] none = new int[devices.length];
        Arrays.fill(none, -1);
        return new RankPlacement(fabric, devices, none, null, null);
    }

    public int nRanks() {
        return devices.length;
    }

    /** The ranks {@code members} of this placement, renumbered from 0 in that order, on the same fabric. */
    public RankPlacement subset(int... members) {
        HostMemory staged = host == null ? null : HostMemory.of(pick(host.shm(), members), pick(host.network(), members));
        return new RankPlacement(fabric, pick(devices, members), pick(nvlsSwitches, members), pick(sharpSwitches, members), staged);
    }

    private static int[] pick(int[] perRank, int[] members) {
        if (perRank == null) {
            return null;
        }
        int[] picked = new int[members.length];
        for (int i = 0; i < members.length; i++) {
            picked[i] = perRank[members[i]];
        }
        return picked;
    }
}
