package dev.collsim.core.nccl;

/**
 * What NCCL's ring search settles on for a node: {@code searchChannels} rings of {@code bwPerChannel}
 * GB/s each after duplication (the tuner's {@code graph->nChannels} and {@code graph->bw}), and the
 * {@code channels} the kernels actually run after {@code connectRings} doubles them.
 *
 * @param p2pBasis the channel count point-to-point channels are derived from ({@code Communicator#p2pChannels}): the
 *                 ring's, except where RCCL copies the rings of one xGMI mesh further for its collectives ({@link #runOn})
 */
public record RingGraph(int searchChannels, double bwPerChannel, int channels, int p2pBasis) {

    public RingGraph(int searchChannels, double bwPerChannel, int channels) {
        this(searchChannels, bwPerChannel, channels, channels);
    }

    /** The tuner's bus bandwidth for the ring: searchChannels x bwPerChannel, GB/s. */
    public double busBw() {
        return searchChannels * bwPerChannel;
    }

    /**
     * Reproduces NCCL's intra-node ring search on a GPU whose links to the rest of the node carry
     * {@code gpuBw} GB/s in NCCL's own link model ({@code src/graph/search.cc}, {@code connect.cc}):
     * take the fastest speed of the arch's array that fits, pack as many channels of it as the
     * bandwidth allows, duplicate them at half speed when fast enough
     * ({@code ncclTopoDupChannels}), then double for execution (capped at 64).
     */
    public static RingGraph search(NcclArch arch, NcclVersion version, double gpuBw) {
        double[] speeds = version.speedArrayIntra(arch);
        double speed = 0;
        for (double s : speeds) {
            if (s <= gpuBw) {
                speed = s;
                break;
            }
        }
        if (speed == 0) {
            speed = speeds[speeds.length - 1];
        }
        int channels = Math.max(1, Math.min(32, (int) Math.floor(gpuBw / speed + 1e-9)));
        if (speed >= 25 && !(arch.sm() > 80 && speed < 50 && channels > 4)) {
            channels *= 2;
            speed /= 2;
        }
        return new RingGraph(channels, speed, Math.min(64, channels * 2));
    }

    /**
     * The same rings run on {@code execChannels} channels, as RCCL copies its rings of one xGMI mesh for its collectives
     * ({@link RcclTuning#meshChannels}); point-to-point keeps the channels it had: what RCCL gives an xGMI peer is not
     * read yet, and the one-node alltoall runs measured fit that count (MI355X from 1 MiB within 4.2 %, against 8.5 %
     * with the copies).
     */
    RingGraph runOn(int execChannels) {
        return new RingGraph(searchChannels, bwPerChannel, execChannels, channels);
    }

    /** The fastest of NCCL's inter-node speeds a NIC of {@code nicGBps} carries. */
    static double interSpeed(NcclArch arch, NcclVersion version, double nicGBps) {
        double[] speeds = version.speedArrayInter(arch);
        for (double s : speeds) {
            if (s <= nicGBps) {
                return s;
            }
        }
        return speeds[speeds.length - 1];
    }

    /**
     * The ring graph across nodes: one ring per NIC of a node at the fastest inter-node speed a NIC
     * carries (NCCL counts a 400 Gb/s NIC as 50 GB/s), doubled for execution, and doubled again on
     * Hopper and later while under 16 channels ({@code connect.cc}).
     */
    public static RingGraph searchInter(NcclArch arch, NcclVersion version, double nicGBps, int nicsPerNode) {
        double speed = interSpeed(arch, version, nicGBps);
        int search = Math.max(1, Math.min(32, nicsPerNode));
        int channels = 2 * search;
        if (arch.sm() >= 90 && channels < 16) {
            channels *= 2;
        }
        return new RingGraph(search, speed, Math.min(64, channels));
    }

    /**
     * RCCL's rings across Instinct nodes of eight GPUs and eight NICs, as its topology models of such platforms give
     * them (ROCm/rccl {@code src/graph/rome_models.cc}, {@code rome_model_81} and {@code _89}: 64 rings, each at the
     * node's xGMI bandwidth over 64, {@code totalBw / nChannels}), run on as many channels as RCCL runs across nodes
     * ({@link RcclTuning#channelsAcrossNodes}): never doubled.
     *
     * @param xgmiGBps a GPU's xGMI bandwidth to the rest of its node, as RCCL's topology counts it
     */
    public static RingGraph rcclAcrossNodes(RcclTuning model, double xgmiGBps) {
        return new RingGraph(RCCL_MODEL_RINGS, xgmiGBps / RCCL_MODEL_RINGS, model.channelsAcrossNodes());
    }

    /** The rings of RCCL's models of 8-GPU platforms with NICs. */
    private static final int RCCL_MODEL_RINGS = 64;
}
