package dev.collsim.core.nccl;

/**
 * GPU generations as NCCL's tuner (or, on AMD Instinct, RCCL's) tells them apart, with its per-generation caps
 * ({@code src/graph/tuning.cc} at NCCL 2.30.7; columns are 1 node, 2 nodes, 3 or more nodes) and
 * the speed arrays its ring search tries ({@code src/graph/search.cc}), in GB/s.
 */
public enum NcclArch {
    VOLTA(new double[] {39.0, 39.0, 20.4}, new double[] {20, 20, 20}, new double[] {26.5, 18.5, 10.0}, new double[] {20, 20, 20},
            new double[] {26.5, 18.5, 10.0},
            new double[] {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}, 70, 0, 0),
    AMPERE(new double[] {87.7, 22.5, 19.0}, new double[] {20, 20, 20}, new double[] {24.0, 23.6, 17.8}, new double[] {20, 20, 20},
            new double[] {24.0, 23.6, 17.8},
            new double[] {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}, 80, 0, 0),
    HOPPER(new double[] {141.0, 45.0, 35.0}, new double[] {36.7, 36.7, 36.7}, new double[] {38.7, 41.4, 36.0},
            new double[] {36.7, 36.7, 29.0}, new double[] {0, 57.7, 45.5},
            new double[] {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0}, 90, 0.85, 16),
    BLACKWELL(new double[] {282.0, 90.0, 70.0}, new double[] {40.0, 40.0, 40.0}, new double[] {70.0, 42.8, 24.0},
            new double[] {55.6, 31.67, 20.0}, new double[] {0, 96.0, 80.0},
            new double[] {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0}, 100, 0.74, 24),
    /**
     * AMD CDNA 3 (MI300X, MI325X; gfx942) as RCCL sees it: no NVIDIA tuner tables (RCCL's tuner has its
     * own, {@link NcclTuner}), no NVLS, the AMD build's intra-node ring speeds ({@code speedArrayIntra} in
     * ROCm/rccl {@code src/graph/search.cc}: 48 GB/s, an xGMI link, first). No compute capability: 0.
     */
    CDNA3(new double[3], new double[3], new double[3], new double[3], new double[3],
            new double[] {48.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}, 0, 0, 0),
    /** AMD CDNA 4 (MI355X; gfx950): as CDNA 3 in what RCCL's searches see (the same 48 GB/s a link, {@code GFX95X_XGMI_WIDTH}). */
    CDNA4(new double[3], new double[3], new double[3], new double[3], new double[3],
            new double[] {48.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}, 0, 0, 0);

    private final double[] llMaxBw;
    private final double[] perChMaxRingLL128Bw;
    private final double[] perChMaxTreeBw;
    private final double[] perChMaxTreeLL128Bw;
    private final double[] perChMaxNvlsTreeBw;
    private final double[] speedArrayIntra;
    private final int sm;
    private final double nvlsEfficiency;
    private final int nvlsChannels;

    NcclArch(double[] llMaxBw, double[] perChMaxRingLL128Bw, double[] perChMaxTreeBw, double[] perChMaxTreeLL128Bw,
             double[] perChMaxNvlsTreeBw, double[] speedArrayIntra, int sm,
             double nvlsEfficiency, int nvlsChannels) {
        this.llMaxBw = llMaxBw;
        this.perChMaxRingLL128Bw = perChMaxRingLL128Bw;
        this.perChMaxTreeBw = perChMaxTreeBw;
        this.perChMaxTreeLL128Bw = perChMaxTreeLL128Bw;
        this.perChMaxNvlsTreeBw = perChMaxNvlsTreeBw;
        this.speedArrayIntra = speedArrayIntra;
        this.sm = sm;
        this.nvlsEfficiency = nvlsEfficiency;
        this.nvlsChannels = nvlsChannels;
    }

    /** NCCL's {@code nvlsEfficiency}; 0 where the generation has no NVLS. */
    public double nvlsEfficiency() {
        return nvlsEfficiency;
    }

    /**
     * Channels an NVLS kernel runs inside one NVLink domain ({@code NVLS_NCHANNELS_SM90} 16,
     * {@code NVLS_NCHANNELS_SM100_NVL} 24); {@link NcclVersion#nvlsChannels} says what else a release runs.
     */
    public int nvlsChannels() {
        return nvlsChannels;
    }

    private static int column(int nNodes) {
        return nNodes <= 1 ? 0 : nNodes == 2 ? 1 : 2;
    }

    /** Cap on LL bus bandwidth over all channels (NCCL's {@code llMaxBws}). */
    public double llMaxBw(int nNodes) {
        return llMaxBw[column(nNodes)];
    }

    /** Cap on Ring LL128 bus bandwidth per channel ({@code perChMaxRingLL128Bws}). */
    public double perChannelMaxRingLL128Bw(int nNodes) {
        return perChMaxRingLL128Bw[column(nNodes)];
    }

    /** Cap on Tree bus bandwidth per channel ({@code perChMaxTreeBws}). */
    public double perChannelMaxTreeBw(int nNodes) {
        return perChMaxTreeBw[column(nNodes)];
    }

    /** Cap on Tree LL128 bus bandwidth per channel ({@code perChMaxTreeLL128Bws}). */
    public double perChannelMaxTreeLL128Bw(int nNodes) {
        return perChMaxTreeLL128Bw[column(nNodes)];
    }

    /** Cap on NVLS-Tree bandwidth per channel ({@code perChMaxNVLSTreeBws}). */
    public double perChannelMaxNvlsTreeBw(int nNodes) {
        return perChMaxNvlsTreeBw[column(nNodes)];
    }

    /** Per-channel speeds the intra-node ring search tries, fastest first. */
    public double[] speedArrayIntra() {
        return speedArrayIntra.clone();
    }

    /** Whether the collectives library is AMD's RCCL (NCCL's fork for Instinct GPUs) rather than NCCL. */
    public boolean rccl() {
        return this == CDNA3 || this == CDNA4;
    }

    /** RCCL's tuning model of this generation, or null for NCCL's GPUs. */
    public RcclTuning rcclTuning() {
        return this == CDNA3 ? RcclTuning.MODEL_5 : this == CDNA4 ? RcclTuning.MODEL_6 : null;
    }

    /** Compute capability x 10 (Hopper 90); 0 on AMD GPUs. */
    public int sm() {
        return sm;
    }

    /**
     * Whether what a NIC writes into this GPU's memory must be flushed before the GPU reads it ({@code
     * ncclTopoNeedFlush}: NCCL's on Ampere and earlier, and from Hopper on only for a NIC whose control path
     * crosses a C2C link, not modelled; RCCL's on every Instinct GPU, {@code src/graph/paths.cc}).
     */
    public boolean needsGdrFlush() {
        return sm < 90;
    }
}
