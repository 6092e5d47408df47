package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveRun;
import dev.collsim.core.collective.CollectiveSimulator;
import dev.collsim.core.collective.CustomKernelCosts;
import dev.collsim.core.collective.FoldedSchedule;
import dev.collsim.core.collective.NvlsTreeAlgorithm;
import dev.collsim.core.collective.Outage;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
import dev.collsim.core.collective.RankPlacement;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.StepCosts;
import dev.collsim.core.collective.TransferObserver;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * A set of ranks on a fabric as NCCL would run collectives on them: where the ranks sit, what NCCL
 * makes of them, and what each kind of step costs.
 *
 * @param name      the system's name, for reports
 * @param placement where the ranks sit on the fabric (GPUs, NVLS and SHARP switches, host staging)
 * @param nccl      NCCL's view: GPU generation, link type, nodes, ring and NVLS graphs
 * @param book      what every kind of step costs
 */
public record Communicator(String name, RankPlacement placement, NcclView nccl, CostBook book) {

    public Communicator {
        if (nccl.nRanks() != placement.nRanks()) {
            throw new IllegalArgumentException("one node entry per rank");
        }
        if ((placement.sharpSwitches() == null) != (book.sharp() == null)) {
            throw new IllegalArgumentException("CollNet needs both its SHARP switches and their costs");
        }
        if ((nccl.nvlsGraph() == null) != (book.nvls() == null)) {
            throw new IllegalArgumentException("NVLS needs both its graph and its costs");
        }
    }

    public Fabric fabric() {
        return placement.fabric();
    }

    public int nRanks() {
        return placement.nRanks();
    }

    public int nNodes() {
        return nccl.nNodes();
    }

    /** The ranks of each node, in rank order. */
    public int[][] nodeRanks() {
        return nccl.nodeRanks();
    }

    public TunerInputs tunerInputs() {
        return new TunerInputs(nRanks(), nNodes(), nccl.arch(), nccl.intraLink(), nccl.ring(), nccl.nvlsGraph(),
                nccl.latencyInterMicros(), placement.sharpSwitches() != null, nccl.version());
    }

    /**
     * The same communicator run by another NCCL release: its graph searches and tuner, hence its
     * algorithms, protocols and channels; what a step costs stays. {@code flag} names the setting in
     * the error where the release predates the GPUs.
     */
    public Communicator runBy(NcclVersion version, String flag) {
        return new Communicator(name, placement, nccl.asRunBy(version, flag), book);
    }

    /**
     * The same communicator over a fabric with some connections degraded or down. NCCL's view (its
     * ring and NVLS graphs, which set channel counts and the tuner's bandwidths) stays that of the
     * healthy system: the question answered is what the same plan costs on the changed wires. Only
     * NVLS goes, as NCCL drops it, when a GPU has lost its link to the NVSwitch.
     */
    public Communicator withLinkEdits(List<LinkEdit> edits) {
        if (edits.isEmpty()) {
            return this;
        }
        Fabric edited = fabric().withEdits(edits);
        boolean nvlsLeft = nccl.nvlsGraph() != null;
        for (int r = 0; r < nRanks() && nvlsLeft; r++) {
            int gpu = placement.devices()[r];
            int sw = placement.nvlsSwitches()[r];
            nvlsLeft = sw >= 0 && Arrays.stream(edited.outLinks(gpu)).anyMatch(l -> edited.link(l).to() == sw);
        }
        RankPlacement moved = new RankPlacement(edited, placement.devices(), placement.nvlsSwitches(), placement.sharpSwitches(),
                placement.host());
        return nvlsLeft ? new Communicator(name, moved, nccl, book) : new Communicator(name, moved, nccl.withoutNvls(), book.withoutNvls());
    }

    /**
     * The same ranks with the same NCCL view and costs, placed elsewhere: the group as part of a
     * larger fabric, say, where its collectives run beside other groups'.
     */
    public Communicator placedAt(RankPlacement elsewhere) {
        if (elsewhere.nRanks() != nRanks()) {
            throw new IllegalArgumentException(nRanks() + " ranks placed on " + elsewhere.nRanks() + " devices");
        }
        return new Communicator(name, elsewhere, nccl, book);
    }

    /** The same communicator with NVLS unavailable, as {@code NCCL_NVLS_ENABLE=0} makes it. */
    public Communicator withoutNvls() {
        return new Communicator(name, placement, nccl.withoutNvls(), book.withoutNvls());
    }

    /** The same communicator without in-network reduction, as {@code NCCL_COLLNET_ENABLE=0} (NCCL's default) makes it. */
    public Communicator withoutCollNet() {
        RankPlacement noSharp = new RankPlacement(placement.fabric(), placement.devices(), placement.nvlsSwitches(), null,
                placement.host());
        return new Communicator(name, noSharp, nccl, book.withoutSharp());
    }

    /** Channels of NCCL's point-to-point path: the ring channels rounded up to a power of two (32 on H100). */
    public int p2pChannels() {
        return Integer.highestOneBit(Math.max(1, nccl.ring().p2pBasis() * 2 - 1));
    }

    /** NCCL's {@code P2P_PER_CHANNEL_NET_BW}: the GB/s it plans one p2p channel to a network peer to carry. */
    public static final double P2P_PER_CHANNEL_NET_GBPS = 14;
    /** NCCL's {@code NCCL_MAX_DEV_WORK_P2P_PER_BATCH}: peers one batch of p2p work serves. */
    private static final int P2P_PER_BATCH = 8;

    /**
     * NCCL's p2p channels per peer ({@code ncclTopoComputeP2pChannelsPerPeer} and
     * {@code ncclTopoComputeP2pChannels}, {@code src/graph/paths.cc}): the fewest any peer gets (two
     * a NVLink, two over PCIe, over the network one a local NIC and enough to carry the NICs'
     * bandwidth at {@value #P2P_PER_CHANNEL_NET_GBPS} GB/s a channel), a power of two; across nodes
     * halved until every peer fits in one round of the communicator's p2p channels.
     */
    public int p2pChannelsPerPeer() {
        int perPeer = nccl.intraLink() == LinkType.NVLINK ? p2pChannels() : 2;
        if (nNodes() > 1) {
            perPeer = Integer.highestOneBit(Math.max(1, Math.min(perPeer, netChannels()) * 2 - 1));
            int batches = (nRanks() + P2P_PER_BATCH - 1) / P2P_PER_BATCH;
            while (perPeer * batches > p2pChannels() && perPeer > 1) {
                perPeer /= 2;
            }
            return perPeer;
        }
        return Math.min(p2pChannels(), perPeer);
    }

    /**
     * Channels NCCL gives a network peer ({@code ncclTopoGetNchannels}): one a NIC next to the first
     * rank's GPU, counted until their bandwidth reaches the GPU's PCIe link, and more if that
     * bandwidth needs them at {@value #P2P_PER_CHANNEL_NET_GBPS} GB/s each; two without a NIC in view.
     */
    private int netChannels() {
        Fabric fabric = fabric();
        int gpu = placement.devices()[0];
        int count = 0;
        double bw = 0;
        for (int up : fabric.outLinks(gpu)) {
            Link toSwitch = fabric.link(up);
            if (fabric.device(toSwitch.to()).kind() != DeviceKind.PCIE_SWITCH) {
                continue;
            }
            double gpuBw = toSwitch.rate().gigabytesPerSecond();
            for (int l : fabric.outLinks(toSwitch.to())) {
                int nic = fabric.link(l).to();
                if (fabric.device(nic).kind() != DeviceKind.NIC || bw >= gpuBw) {
                    continue;
                }
                double nicBw = 0;
                for (int out : fabric.outLinks(nic)) {
                    if (fabric.device(fabric.link(out).to()).kind() == DeviceKind.NETWORK_SWITCH) {
                        nicBw = Math.max(nicBw, fabric.link(out).rate().gigabytesPerSecond());
                    }
                }
                bw += Math.min(nicBw, gpuBw);
                count++;
            }
        }
        return count == 0 ? 2 : Math.max(count, (int) Math.ceil(bw / P2P_PER_CHANNEL_NET_GBPS));
    }

    /** Whether every rank reaches every other over NVLink: one node whose GPUs talk over NVLink. */
    public boolean oneNvlinkDomain() {
        return nNodes() == 1 && nccl.intraLink() == LinkType.NVLINK;
    }

    /** NCCL's p2p chunk ({@code P2P_*_CHUNKSIZE}): 512 KiB when every peer is over NVLink, else 128 KiB. */
    public long p2pChunkBytes() {
        return oneNvlinkDomain() ? 512 * 1024 : 128 * 1024;
    }

    /** NCCL's NVLS-Tree chunk for a collective of {@code bytes} over {@code channels} here. */
    public long nvlsTreeChunk(long bytes, int channels) {
        return NvlsTreeAlgorithm.chunkFor(bytes, channels, nRanks() / nNodes(), nNodes());
    }

    /** Builds the schedule a plan describes. */
    public Schedule schedule(Plan plan) {
        return plan.algo().algorithm(this, plan).schedule(plan.request());
    }

    /**
     * Simulates a planned collective chunk by chunk. Ring and point-to-point kernels start after NCCL's
     * ring base latency for the protocol (launch and set-up); NVLS kernels after the NVLS launch latency;
     * the inference engines' kernels after their own, shorter one.
     */
    public RunResult simulate(Plan plan, TransferObserver observer, boolean checkCapacity) {
        return simulate(plan, observer, checkCapacity, 1, null, null);
    }

    /**
     * As above, on the plan's schedule built already ({@link #schedule}), for a caller that needs
     * it before the run (to size what its observer keeps per transfer).
     */
    public RunResult simulate(Plan plan, Schedule schedule, TransferObserver observer, boolean checkCapacity) {
        return run(plan, schedule, observer, checkCapacity, 1, null, null);
    }

    /**
     * As above, for a stochastic run: the launch latency scaled by {@code launchFactor}, each
     * point-to-point step's latency by a factor {@code stepJitter} draws per transfer (null: none),
     * and some links down for a while (null: none).
     */
    public RunResult simulate(Plan plan, TransferObserver observer, boolean checkCapacity, double launchFactor,
                              DoubleSupplier stepJitter, Outage outage) {
        if (observer == null && !checkCapacity && stepJitter == null && outage == null) {
            // Nothing asks after each transfer and every rank runs alike: one orbit may stand for all.
            Optional<RunResult> folded = plan.algo().algorithm(this, plan).folded(plan.request())
                    .flatMap(f -> CollectiveSimulator.runFolded(placement, f, stepCosts(plan, launchFactor)));
            if (folded.isPresent()) {
                return folded.get();
            }
        }
        return run(plan, schedule(plan), observer, checkCapacity, launchFactor, stepJitter, outage);
    }

    /**
     * How many transfers of the whole schedule each simulated transfer stands for when nothing asks
     * after single transfers ({@link #simulate(Plan, TransferObserver, boolean)} without an observer):
     * the fold's order where the run folds to one orbit of ranks, 1 where it runs whole.
     */
    public int foldOrder(Plan plan) {
        return plan.algo().algorithm(this, plan).folded(plan.request())
                .filter(f -> CollectiveSimulator.folds(placement, f)).map(FoldedSchedule::order).orElse(1);
    }

    /** A planned collective with its schedule and step costs, to run beside others ({@link CollectiveSimulator#runTogether}). */
    public CollectiveRun collectiveRun(Plan plan) {
        return CollectiveRun.of(placement, schedule(plan), stepCosts(plan, 1));
    }

    private RunResult run(Plan plan, Schedule schedule, TransferObserver observer, boolean checkCapacity, double launchFactor,
                          DoubleSupplier stepJitter, Outage outage) {
        CollectiveRun run = new CollectiveRun(placement, schedule, stepCosts(plan, launchFactor), observer, checkCapacity, stepJitter,
                outage);
        return CollectiveSimulator.run(run);
    }

    /** What each kind of step of a planned collective costs, its launch latency scaled by {@code launchFactor}. */
    private StepCosts stepCosts(Plan plan, double launchFactor) {
        StepCosts steps;
        if (plan.algo() == AlgorithmId.ONE_RANK) {
            // The copy engine's copy: a local copy at the copy engine's rate.
            CostBook.DeviceCopy copy = book.deviceCopy();
            steps = new StepCosts(book.protocols().get(Protocol.SIMPLE).withLocalCopyRate(copy.rate()), null, null,
                    copy.fixed().times(launchFactor));
        } else if (plan.algo().custom()) {
            CustomKernelCosts custom = book.custom();
            steps = new StepCosts(custom.perBlock(plan.algo().kernel()), book.nvls() == null ? null : custom.multimem(book.nvls()),
                    null, custom.launchLatency().times(launchFactor));
        } else {
            Protocol proto = plan.request().protocol();
            TimeSpan launch = plan.algo().inSwitch() ? book.nvls().launchLatency() : kernelStart(plan.algo().nccl(), proto);
            steps = new StepCosts(costs(plan.algo(), proto), book.nvls(), book.sharp(), launch.times(launchFactor));
        }
        return steps;
    }

    /**
     * When a kernel's first step may start: for a ring, tree or PAT kernel the generation's measured start
     * plus what NCCL's base latencies add for this algorithm and protocol over a ring's LL, and under Simple
     * what the generation's Simple kernels were measured to take beyond that; for the
     * grouped sends and receives of point to point (no NCCL algorithm), NCCL's ring base latency, as
     * before: their kernel starts later than a ring's on every generation measured (all-to-all of 512 B
     * on 2 GPUs 1.3-1.7 us after an all_gather's, aiconfigurator's A100, H200 and GB300 runs).
     */
    private TimeSpan kernelStart(NcclAlgo algo, Protocol proto) {
        if (algo == null) {
            return TimeSpan.ofMicros(NcclTuner.baseLatencyMicros(nccl.arch(), NcclAlgo.RING, proto));
        }
        double beyondRingLl = NcclTuner.baseLatencyMicros(nccl.arch(), algo, proto)
                - NcclTuner.baseLatencyMicros(nccl.arch(), NcclAlgo.RING, Protocol.LL);
        CostBook.KernelStart start = book.kernelStart();
        double simple = proto == Protocol.SIMPLE ? start.simpleMeasured().micros() : 0;
        return TimeSpan.ofMicros(Math.max(0, start.ringLl().micros() + beyondRingLl + simple));
    }

    /**
     * What one channel of {@code algo} costs under {@code proto}: the protocol's costs, which are a
     * ring's, and for the tree NCCL's tree latencies and LL128 rate ({@link TreeCosts}).
     */
    public ProtocolCosts costs(AlgorithmId algo, Protocol proto) {
        ProtocolCosts ring = book.protocols().get(proto);
        return algo == AlgorithmId.TREE ? TreeCosts.of(ring, proto, nccl.arch(), nNodes()) : ring;
    }

    /** The links (both directions) of the connection between two devices, by name; empty if they are not joined. */
    public int[] connection(String a, String b) {
        Fabric fabric = fabric();
        return fabric.links().stream().filter(l -> new LinkEdit(a, b, 0).joins(fabric.device(l.from()).name(),
                fabric.device(l.to()).name())).mapToInt(Link::id).toArray();
    }
}
