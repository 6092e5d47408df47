package dev.collsim.core.nccl;

/**
 * What NCCL's NVLS graph search settles on for a node ({@code ncclTopoSearchTryNvls} in
 * {@code src/graph/search.cc}): one search channel per GPU, each costing its speed on every GPU's
 * link to the NVSwitch and twice that on its head's, so {@code (gpus + 1) x bwIntra} must fit in a
 * GPU's NVLink bandwidth. Without a network to constrain it, the second search pass raises
 * {@code bwInter} to the top of the speed array. {@code channels} is what the kernel runs.
 */
public record NvlsGraph(int searchChannels, double bwIntra, double bwInter, int channels) {

    public static NvlsGraph search(NcclArch arch, NcclVersion version, double gpuBw, int gpus) {
        double[] speeds = version.speedArrayIntra(arch);
        double intra = speeds[speeds.length - 1];
        for (double s : speeds) {
            if ((gpus + 1) * s <= gpuBw) {
                intra = s;
                break;
            }
        }
        return new NvlsGraph(gpus, intra, speeds[0], version.nvlsChannels(arch, false));
    }

    /**
     * Across nodes the NIC bounds the inter speed (the fastest of NCCL's inter-node speeds it carries),
     * and Blackwell runs its multi-node NVLS channel count.
     */
    public static NvlsGraph searchAcrossNodes(NcclArch arch, NcclVersion version, double gpuBw, int gpus, double nicGBps) {
        NvlsGraph one = search(arch, version, gpuBw, gpus);
        return new NvlsGraph(gpus, one.bwIntra(), RingGraph.interSpeed(arch, version, nicGBps), version.nvlsChannels(arch, true));
    }
}
