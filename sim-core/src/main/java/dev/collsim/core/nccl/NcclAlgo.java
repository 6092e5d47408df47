package dev.collsim.core.nccl;

/** NCCL's algorithms, in the order of its tuner tables ({@code nccl_tuner.h}). */
public enum NcclAlgo {
    TREE("Tree"),
    RING("Ring"),
    COLLNET_DIRECT("CollNetDirect"),
    COLLNET_CHAIN("CollNetChain"),
    NVLS("NVLS"),
    NVLS_TREE("NVLSTree"),
    PAT("PAT");

    private final String label;

    NcclAlgo(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
