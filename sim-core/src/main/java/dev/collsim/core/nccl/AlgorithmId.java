package dev.collsim.core.nccl;

/**
 * Every algorithm a collective can run with: NCCL's own (those its tuner weighs, {@link NcclAlgo}),
 * NCCL's point-to-point path for alltoall and sendrecv, and the custom all-reduce kernels of
 * inference engines. The names are what {@code --algo} takes.
 */
public enum AlgorithmId {
    RING("Ring", NcclAlgo.RING),
    TREE("Tree", NcclAlgo.TREE),
    COLLNET_DIRECT("CollNetDirect", NcclAlgo.COLLNET_DIRECT),
    COLLNET_CHAIN("CollNetChain", NcclAlgo.COLLNET_CHAIN),
    NVLS("NVLS", NcclAlgo.NVLS),
    NVLS_TREE("NVLSTree", NcclAlgo.NVLS_TREE),
    PAT("PAT", NcclAlgo.PAT),
    /** NCCL's send/receive path, used by alltoall and sendrecv. */
    P2P("P2P", null),
    /** vLLM's and TensorRT-LLM's one-shot all-reduce: every rank writes its whole input to every peer. */
    ONESHOT("OneShot", null),
    /** Their two-shot all-reduce: a reduce-scatter and an all-gather by direct writes, in one kernel. */
    TWOSHOT("TwoShot", null),
    /** The multimem (NVLS) one-shot of TensorRT-LLM and torch symmetric memory: one switch reduction and multicast. */
    MULTIMEM("Multimem", null);

    private final String label;
    private final NcclAlgo nccl;

    AlgorithmId(String label, NcclAlgo nccl) {
        this.label = label;
        this.nccl = nccl;
    }

    public String label() {
        return label;
    }

    /** The algorithm in NCCL's tuner tables, or null for the others. */
    public NcclAlgo nccl() {
        return nccl;
    }

    public static AlgorithmId of(NcclAlgo algo) {
        for (AlgorithmId a : values()) {
            if (a.nccl == algo) {
                return a;
            }
        }
        throw new IllegalArgumentException(String.valueOf(algo));
    }

    /** True for the inference engines' kernels, which run only when asked for by name. */
    public boolean custom() {
        return this == ONESHOT || this == TWOSHOT || this == MULTIMEM;
    }
}
