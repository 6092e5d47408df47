package dev.collsim.scenarios.decode;

import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.FabricSystem;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Where a decode step runs: a preset (as many nodes as the layout needs) or a topology file (its
 * nodes and no more). Groups of GPUs are placed as tightly as it allows: inside one node when they
 * fit, else on whole nodes, the first ranks first.
 */
abstract class Machine {
    abstract String name();

    abstract GpuModel gpu();

    abstract int gpusPerNode();

    /** Nodes it has, or {@link Integer#MAX_VALUE} for a preset that grows with the layout. */
    abstract int maxNodes();

    /** A group of {@code size} GPUs; {@code size} fits in a node or is a multiple of it. */
    abstract Communicator group(int size);

    /** Two GPUs: of one node, or the first GPUs of two nodes. */
    abstract Communicator pair(boolean sameNode);

    /** All the GPUs of a layout of {@code gpus}, on as many whole nodes as they fill, in rank order node by node. */
    abstract Communicator layout(int gpus);

    /** What DeepEP's kernels see of a GPU, the what-ifs applied. Only a preset says its NICs; a topology file's system refuses. */
    abstract DeepEp.Rates deepEpRates();

    /** Nodes {@code gpus} fill. */
    int nodesFor(int gpus) {
        return (gpus + gpusPerNode() - 1) / gpusPerNode();
    }

    static Machine of(DecodeSpec spec) {
        if (spec.system() instanceof DecodeSystem.File f) {
            return new File(f.system(), f.linkEdits());
        }
        DecodeSystem.Preset p = (DecodeSystem.Preset) spec.system();
        return new Preset(p.preset(), p.preset().gpusPerNode(p.gpusPerNode().isPresent() ? p.gpusPerNode().getAsInt() : null), p.network(),
                p.whatIf());
    }

    void checkGroup(int size) {
        if (size > gpusPerNode() && size % gpusPerNode() != 0) {
            throw new InputException("a group of " + size + " GPUs on " + name() + " (" + gpusPerNode()
                    + " per node in use) must fit in one node or fill whole nodes");
        }
    }

    private static final class Preset extends Machine {
        private final SystemPreset preset;
        private final int perNode;
        private final NetworkPreset network;
        private final WhatIf whatIf;

        Preset(SystemPreset preset, int perNode, NetworkPreset network, WhatIf whatIf) {
            this.preset = preset;
            this.perNode = perNode;
            this.network = network;
            this.whatIf = whatIf;
        }

        @Override
        String name() {
            return preset.id();
        }

        @Override
        GpuModel gpu() {
            return preset.gpu();
        }

        @Override
        int gpusPerNode() {
            return perNode;
        }

        @Override
        int maxNodes() {
            return preset.family().maxNodes();
        }

        @Override
        DeepEp.Rates deepEpRates() {
            GpuModel gpu = preset.gpu();
            if (gpu.nvlink() == null) {
                throw new InputException("--all2all deepep: DeepEP's kernels need NVLink, which " + preset.id() + "'s " + gpu.label()
                        + " has not; use --all2all alltoall or allgather");
            }
            NetworkPreset net = network != null ? network : preset.defaultNetwork();
            double nvlink = gpu.nvlinks() * gpu.nvlink().effectiveRate().bytesPerSecond() / 1e9
                    * whatIf.rateScale().getOrDefault(WhatIf.LinkClass.NVLINK, 1.0);
            double nic = (whatIf.nicLineRate() != null ? whatIf.nicLineRate() : net.lineRate()).bytesPerSecond() / 1e9
                    * (whatIf.nicsPerGpu() > 0 ? whatIf.nicsPerGpu() : net.nicsPerGpu()) * whatIf.rateScale().getOrDefault(WhatIf.LinkClass.NETWORK, 1.0);
            return new DeepEp.Rates(nvlink, nic);
        }

        @Override
        Communicator group(int size) {
            checkGroup(size);
            return preset.build(size <= perNode ? 1 : size / perNode, Math.min(size, perNode), network, whatIf)
                    .withLinkEdits(whatIf.linkEdits()).withoutCollNet();
        }

        @Override
        Communicator pair(boolean sameNode) {
            return sameNode ? group(2) : preset.build(2, 1, network, whatIf).withLinkEdits(whatIf.linkEdits()).withoutCollNet();
        }

        @Override
        Communicator layout(int gpus) {
            return preset.build(nodesFor(gpus), Math.min(gpus, perNode), network, whatIf).withLinkEdits(whatIf.linkEdits()).withoutCollNet();
        }
    }

    private static final class File extends Machine {
        private final FabricSystem system;
        private final List<LinkEdit> linkEdits;

        File(FabricSystem system, List<LinkEdit> linkEdits) {
            this.system = system;
            this.linkEdits = linkEdits;
        }

        @Override
        String name() {
            return system.name();
        }

        @Override
        GpuModel gpu() {
            return system.gpu();
        }

        @Override
        int gpusPerNode() {
            return system.gpusPerNode();
        }

        @Override
        int maxNodes() {
            return system.nodes();
        }

        @Override
        DeepEp.Rates deepEpRates() {
            throw new InputException("--all2all deepep: DeepEP's kernels are timed from a preset's NVLink and NICs; on a topology file's"
                    + " system use --all2all alltoall or allgather");
        }

        @Override
        Communicator group(int size) {
            checkGroup(size);
            if (size > system.ranks().length) {
                throw new InputException("a group of " + size + " GPUs: " + name() + " has " + system.ranks().length);
            }
            return system.of(IntStream.range(0, size).toArray()).withLinkEdits(linkEdits);
        }

        @Override
        Communicator pair(boolean sameNode) {
            if (!sameNode && system.nodes() < 2) {
                throw new InputException(name() + " has one node; pipeline stages across nodes need two");
            }
            return system.of(0, sameNode ? 1 : gpusPerNode()).withLinkEdits(linkEdits);
        }

        @Override
        Communicator layout(int gpus) {
            return system.of(IntStream.range(0, Math.min(system.ranks().length, nodesFor(gpus) * gpusPerNode())).toArray())
                    .withLinkEdits(linkEdits);
        }
    }
}
