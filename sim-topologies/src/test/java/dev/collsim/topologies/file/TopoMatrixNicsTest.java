package dev.collsim.topologies.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.FabricSystem;
import dev.collsim.topologies.systems.NodeCopies;
import dev.collsim.topologies.systems.WhatIf;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * {@code nvidia-smi topo -m} with its NIC rows and columns: an 8-GPU HGX H100 server whose GPU pairs
 * share a PCIe switch and a NIC (topologies/hgx-h100-4nic.topo-m.txt) imports with its 4 NICs under
 * those switches and its two sockets, and joined as 4 nodes its shared NICs slow a large all_reduce
 * against the same node with a NIC per GPU.
 */
class TopoMatrixNicsTest {
    private static final TopoMatrixImport.Rates RATES = new TopoMatrixImport.Rates(Rate.gigabytesPerSecond(20.6),
            Rate.gigabytesPerSecond(54.4), Rate.gigabytesPerSecond(40));

    private static FabricSystem imported() throws Exception {
        String yaml = TopoMatrixImport.toYaml(Files.readAllLines(Path.of("../topologies/hgx-h100-4nic.topo-m.txt")), "4nic", GpuModel.H100_SXM,
                RATES);
        return TopologyFile.readSystem(new StringReader(yaml), "4nic.yaml");
    }

    @Test
    void theNicsSitWhereTheMatrixPutsThem() throws Exception {
        Fabric f = imported().fabric();
        assertEquals(4, f.devicesOfKind(DeviceKind.NIC).size());
        assertEquals(4, f.devicesOfKind(DeviceKind.PCIE_SWITCH).size());
        assertEquals(2, f.devicesOfKind(DeviceKind.CPU).size());
        // GPU1 and NIC0 (PXB) hang off one PCIe switch; GPU2 reaches NIC0 only through its socket (NODE).
        assertEquals(2, hops(f, "gpu1", "nic0"));
        assertEquals(4, hops(f, "gpu2", "nic0"));
    }

    private static int hops(Fabric f, String a, String b) {
        int from = f.devices().stream().filter(d -> d.name().equals(a)).findFirst().orElseThrow().id();
        int to = f.devices().stream().filter(d -> d.name().equals(b)).findFirst().orElseThrow().id();
        return f.router().route(from, to).links().length;
    }

    @Test
    void joinedAsFourNodesTheSharedNicsCount() throws Exception {
        Communicator four = NodeCopies.join(imported(), 4, NetworkPreset.IB_NDR, WhatIf.NONE).communicator();
        Communicator eight = NodeCopies.join(TopologyFile.loadSystem(Path.of("../topologies/hgx-h100-nics.yaml")), 4, NetworkPreset.IB_NDR,
                WhatIf.NONE).communicator();
        assertEquals(32, four.nRanks());
        double shared = micros(four);
        double own = micros(eight);
        assertTrue(shared > 1.5 * own, shared + " us with a NIC per GPU pair, " + own + " us with one per GPU");
    }

    private static double micros(Communicator c) {
        Plan plan = NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, 1L << 30, 0, EnumSet.allOf(AlgorithmId.class), EnumSet.allOf(Protocol.class), 0);
        return c.simulate(plan, null, false).durationMicros();
    }
}
