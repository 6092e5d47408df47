package dev.collsim.topologies.systems;

import dev.collsim.core.nccl.Communicator;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.PcieGeneration;

/**
 * Nodes that are each one NVLink domain (an HGX board, an NVL72 rack) of {@code nvswitchChips}
 * NVSwitch chips, joined by a rail-optimised network ({@link HgxCluster}).
 */
public record NvlinkDomain(int gpusPerNode, PcieGeneration pcie, NetworkPreset defaultNetwork, int nvswitchChips)
        implements SystemFamily {
    @Override
    public Communicator build(SystemPreset preset, int nodes, int gpusPerNode, NetworkPreset network, WhatIf whatIf) {
        return HgxCluster.build(preset, this, nodes, gpusPerNode, network == null ? defaultNetwork : network, whatIf);
    }

    @Override
    public int maxNodes() {
        return Integer.MAX_VALUE;
    }

    /**
     * E.g. {5, 4, 4, 5} on HGX H100 (the remainder on the outer chips). The fabric joins the chips into
     * one crossbar: NVLink stripes traffic over all of a GPU's links by address, so the crossbar's
     * bundle carries exactly what the chips do.
     */
    @Override
    public int[] nvlinksPerChip(GpuModel gpu) {
        int[] spread = new int[nvswitchChips];
        for (int c = 0; c < nvswitchChips; c++) {
            spread[c] = gpu.nvlinks() / nvswitchChips;
        }
        for (int extra = 0; extra < gpu.nvlinks() % nvswitchChips; extra++) {
            spread[extra % 2 == 0 ? extra / 2 : nvswitchChips - 1 - extra / 2]++;
        }
        return spread;
    }
}
