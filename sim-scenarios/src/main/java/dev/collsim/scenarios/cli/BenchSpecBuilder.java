package dev.collsim.scenarios.cli;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.NcclVersion;
import dev.collsim.core.nccl.Selection;
import dev.collsim.scenarios.bench.BenchSpec;
import dev.collsim.scenarios.bench.DataType;
import dev.collsim.scenarios.bench.ReduceOp;
import dev.collsim.scenarios.bench.SizeSweep;
import dev.collsim.topologies.systems.WhatIf;
import java.util.EnumSet;
import java.util.Set;

/**
 * A bench spec from typed values, nccl-tests' defaults for the rest: bench sets every field from its
 * flags, demo and calibrate only what they fix, so none of them passes a row of strings.
 */
final class BenchSpecBuilder {
    private final CollectiveOp op;
    private final BenchSystem system;
    private final SizeSweep sizes;
    private WhatIf whatIf = WhatIf.NONE;
    private int gpusPerThread = 1;
    private DataType type = DataType.FLOAT;
    private ReduceOp redop = ReduceOp.SUM;
    private int root;
    private Set<AlgorithmId> algos = EnumSet.allOf(AlgorithmId.class);
    private Set<Protocol> protocols = EnumSet.allOf(Protocol.class);
    private int channels;
    private boolean nvls = true;
    private boolean collNet;
    private NcclVersion nccl = NcclVersion.NEWEST;

    BenchSpecBuilder(CollectiveOp op, BenchSystem system, SizeSweep sizes) {
        this.op = op;
        this.system = system;
        this.sizes = sizes;
    }

    /** {@code --algo}: a list as NCCL_ALGO takes it, the error naming the flag. */
    static Set<AlgorithmId> algos(String list) {
        return Flags.parse("--algo", () -> Selection.parse(list, AlgorithmId.class, AlgorithmId::label, "algorithm"));
    }

    /** {@code --proto}: a list as NCCL_PROTO takes it, the error naming the flag. */
    static Set<Protocol> protocols(String list) {
        return Flags.parse("--proto", () -> Selection.parse(list, Protocol.class, Protocol::label, "protocol"));
    }

    /** {@code -d}: a data type as nccl-tests names it. */
    static DataType type(String name) {
        return Flags.parse("-d", () -> DataType.fromName(name));
    }

    BenchSpecBuilder whatIf(WhatIf whatIf) {
        this.whatIf = whatIf;
        return this;
    }

    BenchSpecBuilder gpusPerThread(int gpusPerThread) {
        this.gpusPerThread = gpusPerThread;
        return this;
    }

    BenchSpecBuilder type(DataType type) {
        this.type = type;
        return this;
    }

    BenchSpecBuilder redop(ReduceOp redop) {
        this.redop = redop;
        return this;
    }

    BenchSpecBuilder root(int root) {
        this.root = root;
        return this;
    }

    BenchSpecBuilder algos(Set<AlgorithmId> algos) {
        this.algos = algos;
        return this;
    }

    BenchSpecBuilder protocols(Set<Protocol> protocols) {
        this.protocols = protocols;
        return this;
    }

    /** A fixed channel count, or 0 to choose as NCCL does. */
    BenchSpecBuilder channels(int channels) {
        this.channels = channels;
        return this;
    }

    BenchSpecBuilder nvls(boolean nvls) {
        this.nvls = nvls;
        return this;
    }

    BenchSpecBuilder collNet(boolean collNet) {
        this.collNet = collNet;
        return this;
    }

    BenchSpecBuilder nccl(NcclVersion nccl) {
        this.nccl = nccl;
        return this;
    }

    /** The spec, which checks the values against each other (-g, -r, --channels against the system). */
    BenchSpec build() {
        return new BenchSpec(op, system.name(), system.whole(), system.nodes(), system.gpusPerNode(), system.network(), whatIf,
                gpusPerThread, type, redop, root, sizes, algos, protocols, channels, nvls, collNet, nccl);
    }
}
