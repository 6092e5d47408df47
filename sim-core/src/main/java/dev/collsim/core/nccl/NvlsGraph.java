package dev.collsim.core.nccl;

/**
 * What NCCL's NVLS graph search settles on for a node ({@code ncclTopoSearchTryNvls} in
 * {@code src/graph/search.cc}): one search channel per GPU, each costing its speed on every GPU's
 * link to the NVSwitch and twice that on its head's, so {@code (gpus + 1) x bwIntra} must fit in a
 * GPU's NVLink bandwidth. Without a network to constrain it, the second search pass raises
 * {@code bwInter} to the top of the speed array. {@code channels} is what the kernel runs.
 */
public record NvlsGraph(int searchChannels, double bwIntra, double bwInter, int channels) {

    public static NvlsGraph search(NcclArch arch, double gpuBw, int gpus) {
        double[] speeds = arch.speedArrayIntra();
        double intra = speeds[speeds.length - 1];
        for (double s : speeds) {
            if ((gpus + 1) * s <= gpuBw) {
                intra = s;
                break;
            }
        }
        return new NvlsGraph(gpus, intra, speeds[0], arch.nvlsChannels());
    }

    /** Across nodes the NIC bounds the inter speed: the fastest of NCCL's inter-node speeds it carries. */
    public static NvlsGraph searchAcrossNodes(NcclArch arch, double gpuBw, int gpus, double nicGBps) {
        NvlsGraph one = search(arch, gpuBw, gpus);
        return new NvlsGraph(gpus, one.bwIntra(), RingGraph.interSpeed(nicGBps), arch.nvlsChannels());
    }
}
