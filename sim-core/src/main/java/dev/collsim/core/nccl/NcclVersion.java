package dev.collsim.core.nccl;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * NCCL releases whose choices differ on the modelled systems, each read from its own source (the
 * release commits of github.com/NVIDIA/nccl; one release per minor version, its last patch read here):
 * the speed arrays its graph searches try ({@code src/graph/search.cc}), the NVLS channels
 * ({@code src/transport/nvls.cc}), the tuner's per-channel caps, NVLS model and PAT
 * ({@code src/graph/tuning.cc}). {@link NcclArch} holds the newest release's tables; a release before
 * it differs only where said here. What a kernel physically moves (the protocol costs) does not
 * change with the release: these are NCCL's choices, which decide algorithm, protocol and channels.
 */
public enum NcclVersion {
    V2_22("2.22.3"),
    V2_23("2.23.4"),
    V2_24("2.24.3"),
    V2_25("2.25.1"),
    V2_26("2.26.6"),
    V2_27("2.27.7"),
    V2_28("2.28.9"),
    V2_29("2.29.7"),
    V2_30("2.30.7");

    /** The release a run uses unless told otherwise. */
    public static final NcclVersion NEWEST = V2_30;

    private final String release;

    NcclVersion(String release) {
        this.release = release;
    }

    /** The release whose source was read, "2.27.7". */
    public String release() {
        return release;
    }

    /** The minor version, "2.27". */
    public String minor() {
        return release.substring(0, release.lastIndexOf('.'));
    }

    /**
     * A version as users write it ("2.27", "2.27.3", "2.27.3-1", "v2.27.3"): its minor version picks the
     * release. Null for an unknown or malformed version; {@link #known()} says which are.
     */
    public static NcclVersion find(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.startsWith("v")) {
            t = t.substring(1);
        }
        int dash = t.indexOf('-');
        if (dash >= 0) {
            t = t.substring(0, dash);
        }
        if (!t.matches("\\d+\\.\\d+(\\.\\d+)?")) {
            return null;
        }
        String[] parts = t.split("\\.");
        String minor = Integer.parseInt(parts[0]) + "." + Integer.parseInt(parts[1]);
        return Arrays.stream(values()).filter(v -> v.minor().equals(minor)).findFirst().orElse(null);
    }

    /** The versions {@link #find} knows, for messages: "2.22, 2.23, ..., 2.30". */
    public static String known() {
        return Arrays.stream(values()).map(NcclVersion::minor).collect(Collectors.joining(", "));
    }

    /** Blackwell (compute capability 10.0) is known to NCCL from 2.25 (its LL128 switch and speed arrays first name it). */
    public boolean supports(NcclArch arch) {
        return arch != NcclArch.BLACKWELL || atLeast(V2_25);
    }

    /** Throws a one-line error where this release predates the GPU generation. */
    public void requireSupports(NcclArch arch, String flag) {
        if (!supports(arch)) {
            throw new InputException(flag + " " + minor() + ": NCCL " + release + " predates Blackwell GPUs, which NCCL runs from 2.25");
        }
    }

    private boolean atLeast(NcclVersion v) {
        return compareTo(v) >= 0;
    }

    /** PAT (all_gather and reduce_scatter with one GPU per node) exists from 2.23. */
    public boolean hasPat() {
        return atLeast(V2_23);
    }

    /** PAT's share of the ring's bandwidth in the tuner: 0.85 in 2.23, 0.75 from 2.24. */
    public double patEfficiency() {
        return atLeast(V2_24) ? 0.75 : 0.85;
    }

    /**
     * The intra-node speeds the ring and NVLS searches try, fastest first: Hopper's array until 2.24
     * (and before Blackwell), then {@code sm100SpeedArrayIntra}, which gained 18 GB/s in 2.27 and 45 in 2.29.
     */
    double[] speedArrayIntra(NcclArch arch) {
        if (arch != NcclArch.BLACKWELL || atLeast(V2_29)) {
            return arch.speedArrayIntra();
        }
        return atLeast(V2_27) ? new double[] {90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18}
                : new double[] {90, 80, 70, 60, 50, 40, 30, 24, 20, 19};
    }

    /**
     * The inter-node speeds a NIC is searched at, fastest first ({@code sm90SpeedArrayInter}; on
     * Blackwell {@code sm100SpeedArrayInter}, which from 2.27.7 starts at 96 GB/s, an 800 Gb/s NIC's
     * ring, and gained 80 in 2.29 and 86 in 2.30).
     */
    double[] speedArrayInter(NcclArch arch) {
        if (arch != NcclArch.BLACKWELL || !atLeast(V2_27)) {
            return SM90_INTER.clone();
        }
        double[] fast = atLeast(V2_30) ? new double[] {96, 86, 80} : atLeast(V2_29) ? new double[] {96, 80} : new double[] {96};
        double[] out = Arrays.copyOf(fast, fast.length + SM100_INTER_TAIL.length);
        System.arraycopy(SM100_INTER_TAIL, 0, out, fast.length, SM100_INTER_TAIL.length);
        return out;
    }

    private static final double[] SM90_INTER = {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
    private static final double[] SM100_INTER_TAIL = {48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};

    /**
     * Channels an NVLS kernel runs: {@code NVLS_NCHANNELS_SM90} 16 on Hopper; on Blackwell
     * {@code NVLS_NCHANNELS_SM100} 32 from 2.25, and from 2.27 {@code NVLS_NCHANNELS_SM100_NVL} 24 while
     * the communicator stays in one NVLink domain.
     */
    int nvlsChannels(NcclArch arch, boolean acrossDomains) {
        if (arch != NcclArch.BLACKWELL || (atLeast(V2_27) && !acrossDomains)) {
            return arch.nvlsChannels();
        }
        return 32;
    }

    /**
     * Whether the tuner prices NVLS from the NVSwitch's efficiency (from 2.28: {@code bwIntra x
     * nvlsEfficiency x (nCh-1)/nCh}, twice for all_reduce, converted like a ring) rather than as
     * before ({@code min(bwIntra, bwInter)} a channel, times 5/6).
     */
    public boolean nvlsEfficiencyModel() {
        return atLeast(V2_28);
    }

    /** The NVLS-Tree's network latency a step ({@code hwLatencies[NET][NVLS_TREE]}): 14 us, 20.9 from 2.28.9. */
    double nvlsTreeNetLatencyMicros() {
        return atLeast(V2_28) ? 20.9 : 14;
    }

    /**
     * Cap on Ring LL128 bus bandwidth a channel: Blackwell's was twice Hopper's (73.4) until 2.28,
     * whose 2-node value fell to 34.6, and 40 from 2.29.
     */
    double perChannelMaxRingLL128Bw(NcclArch arch, int nNodes) {
        if (arch != NcclArch.BLACKWELL || atLeast(V2_29)) {
            return arch.perChannelMaxRingLL128Bw(nNodes);
        }
        return atLeast(V2_28) && nNodes == 2 ? 34.6 : 2 * 36.7;
    }

    /** Cap on Tree bus bandwidth a channel: on Blackwell twice Hopper's until 2.27, measured values from 2.28. */
    double perChannelMaxTreeBw(NcclArch arch, int nNodes) {
        if (arch != NcclArch.BLACKWELL || atLeast(V2_28)) {
            return arch.perChannelMaxTreeBw(nNodes);
        }
        return 2 * NcclArch.HOPPER.perChannelMaxTreeBw(nNodes);
    }

    /** Cap on Tree LL128 bus bandwidth a channel: on Blackwell twice Hopper's until 2.27. */
    double perChannelMaxTreeLL128Bw(NcclArch arch, int nNodes) {
        if (arch != NcclArch.BLACKWELL || atLeast(V2_28)) {
            return arch.perChannelMaxTreeLL128Bw(nNodes);
        }
        return 2 * NcclArch.HOPPER.perChannelMaxTreeLL128Bw(nNodes);
    }

    /**
     * Cap on NVLS-Tree bandwidth a channel, from 2.28 (none before): Blackwell's 3-or-more-node
     * value was 43.8 until 2.30 raised it to 80.
     */
    double perChannelMaxNvlsTreeBw(NcclArch arch, int nNodes) {
        if (!atLeast(V2_28)) {
            return Double.MAX_VALUE;
        }
        return arch == NcclArch.BLACKWELL && nNodes > 2 && !atLeast(V2_30) ? 43.8 : arch.perChannelMaxNvlsTreeBw(nNodes);
    }
}
