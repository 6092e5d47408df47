package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.topologies.catalog.NetworkPreset;
import java.util.EnumSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every entry of the algorithm registry ({@link AlgorithmId}) builds its schedule on a system that can
 * run it, and says about how large the schedule is without building it: exactly for the ring, within
 * 10 % for the tree (the two bench's guard against long runs was measured on), within 20x for the rest.
 */
class AlgorithmRegistryTest {
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = AlgorithmId.class, names = {"COLLNET_DIRECT", "COLLNET_CHAIN"}, mode = EnumSource.Mode.EXCLUDE)
    void anEntryBuildsItsScheduleAndKnowsItsSize(AlgorithmId algo) {
        Communicator comm = switch (algo) {
            case TREE, NVLS_TREE -> SystemPreset.HGX_H100.build(2, 8, NetworkPreset.IB_NDR, WhatIf.NONE);
            case PAT -> SystemPreset.HGX_H100.build(4, 1, NetworkPreset.IB_NDR, WhatIf.NONE);
            case ONE_RANK -> SystemPreset.HGX_H100.build(1, 1, null, WhatIf.NONE);
            case ALL_PAIRS -> SystemPreset.MI300X_8X.build(1, 8, null, WhatIf.NONE);
            default -> SystemPreset.HGX_H100.build(1, 8, null, WhatIf.NONE);
        };
        CollectiveOp op = switch (algo) {
            case P2P -> CollectiveOp.ALL_TO_ALL;
            case PAT -> CollectiveOp.ALL_GATHER;
            default -> CollectiveOp.ALL_REDUCE;
        };
        for (long bytes : new long[] {64 << 10, 16 << 20}) {
            Plan plan = NcclPlanner.plan(comm, op, bytes, 0, EnumSet.of(algo), EnumSet.allOf(Protocol.class), 0);
            assertEquals(algo, plan.algo());
            Schedule s = comm.schedule(plan);
            assertTrue(s.transferCount() > 0, algo + " built an empty schedule");
            double ratio = algo.plannedTransfers(plan, comm) / s.transferCount();
            double tolerance = algo == AlgorithmId.RING ? 1e-9 : algo == AlgorithmId.TREE ? 0.1 : 19;
            assertTrue(Math.abs(Math.log(ratio)) <= Math.log1p(tolerance), algo + " at " + bytes + " B: planned/built " + ratio);
        }
    }
}
