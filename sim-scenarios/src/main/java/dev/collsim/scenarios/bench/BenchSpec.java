package dev.collsim.scenarios.bench;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclVersion;
import dev.collsim.topologies.systems.WhatIf;
import java.util.Set;

/**
 * One nccl-tests-style run, fully specified.
 *
 * @param nodes         nodes (NVLink domains) joined by the network
 * @param network       the network between nodes, or null for the system's default
 * @param topology      the system of a topology file that replaces the preset (loaded once, by the caller), or null
 * @param whatIf        changes to the system for what-if questions
 * @param gpusPerThread nccl-tests' {@code -g}: GPUs one host thread drives
 * @param root          root rank of broadcast and reduce
 * @param channels      a fixed channel count, or 0 to choose as NCCL does
 * @param nvls          whether NVLS may be used where the fabric supports it ({@code NCCL_NVLS_ENABLE})
 * @param collNet       whether in-network reduction may be used where the network supports it
 *                      ({@code NCCL_COLLNET_ENABLE}, off by default)
 * @param nccl          the NCCL release that chooses algorithm, protocol and channels
 */
public record BenchSpec(CollectiveOp op, String system, Communicator topology, int nodes, int gpusPerNode, String network,
                        WhatIf whatIf,
                        int gpusPerThread, DataType type,
                        ReduceOp redop, int root, SizeSweep sizes, Set<AlgorithmId> algos, Set<Protocol> protocols,
                        int channels, boolean nvls, boolean collNet, NcclVersion nccl) {
    public BenchSpec {
        if (gpusPerThread < 1 || gpusPerThread > gpusPerNode) {
            throw new InputException("-g " + gpusPerThread + ": a thread drives 1 to " + gpusPerNode + " GPUs here");
        }
        Require.atLeastOne("--nodes", nodes);
        if (root < 0 || root >= nodes * gpusPerNode) {
            throw new InputException("-r " + root + ": the root must be a rank, 0 to " + (nodes * gpusPerNode - 1));
        }
        if (channels < 0 || channels > 64) {
            throw new InputException("--channels " + channels + ": expected 1 to 64 (NCCL's MAXCHANNELS), or leave it out");
        }
    }

    /** The same run on the system changed by other what-if knobs. */
    public BenchSpec withWhatIf(WhatIf other) {
        return new BenchSpec(op, system, topology, nodes, gpusPerNode, network, other, gpusPerThread, type, redop, root, sizes, algos,
                protocols, channels, nvls, collNet, nccl);
    }
}
