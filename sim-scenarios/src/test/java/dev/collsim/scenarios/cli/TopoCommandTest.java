package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TopoCommandTest {
    @Test
    void hgxH100ShowsNv18BetweenEveryPairAndNetAcrossNodes() {
        CliRunner r = CliRunner.run("topo", "show", "--system", "hgx-h100", "--nodes", "2", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals("gpu,gpu0,gpu1,gpu2,gpu3,gpu4,gpu5,gpu6,gpu7,gpu8", lines[0]);
        assertEquals("GPU0,X,NV18,NV18,NV18,NV18,NV18,NV18,NV18,NET", lines[1]);
        assertEquals("GPU8,NET,NET,NET,NET,NET,NET,NET,NET,X", lines[9]);
        assertTrue(r.out().contains("gpu -> nvswitch,NVLink4 x18,16,370.8,250"), r.out());
    }

    @Test
    void nvl72IsOneNvlinkDomainOf72Gpus() {
        CliRunner r = CliRunner.run("topo", "show", "--system", "gb200-nvl72", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertTrue(lines[0].endsWith(",gpu71"), lines[0]);
        assertTrue(lines[72].startsWith("GPU71,NV18,"), lines[72]);
        assertTrue(r.out().contains("gpu -> nvswitch,NVLink5 x18,72,721.8,250"), r.out());
    }

    /** Across racks NCCL runs NVLS_NCHANNELS_SM100's 32 channels (nvls.cc: the NVLink clique is smaller than the communicator). */
    @Test
    void nvl72RacksRunAnAllReduce() {
        CliRunner r = CliRunner.run("bench", "all_reduce", "--system", "gb200-nvl72", "--nodes", "2", "-b", "16M", "-e", "16M",
                "--format", "csv");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().split("\n")[1].contains(",NVLSTree,Simple,32"), r.out());
    }

    @Test
    void topologyFilesValidateAndRun() {
        CliRunner ok = CliRunner.run("topo", "validate", "../topologies/hgx-h100.yaml", "../topologies/nvlink-pairs-4gpu.yaml");
        assertEquals(0, ok.code(), ok.err());
        assertEquals(2, ok.out().lines().filter(l -> l.contains(": ok: ")).count(), ok.out());
        String preset = CliRunner.run("bench", "all_reduce", "-b", "1G", "-e", "1G", "--format", "csv").out();
        String file = CliRunner.run("bench", "all_reduce", "--topology", "../topologies/hgx-h100.yaml", "-b", "1G", "-e", "1G",
                "--format", "csv").out();
        assertEquals(preset, file, "the file describes the same node as the preset");
    }

    /** The seeds' 4-GPU box: all_reduce over the four GPUs is far slower than over one NVLink pair. */
    @Test
    void theSeedsFourGpuBoxMatrixAndItsSlowRing() {
        CliRunner show = CliRunner.run("topo", "show", "--topology", "../topologies/nvlink-pairs-4gpu.yaml", "--format", "csv");
        assertTrue(show.out().contains("GPU0,X,NV4,SYS,SYS"), show.out());
        double busbw = CliRunner.busbw("bench", "all_reduce", "--topology", "../topologies/nvlink-pairs-4gpu.yaml", "-b", "1G", "-e",
                "1G", "--format", "csv");
        assertTrue(busbw < 40, "a ring over the socket link cannot reach the pairs' 80 GB/s NVLink: " + busbw);
    }

    @Test
    void aBadTopologyFileIsOneLineWithExitCode2() {
        CliRunner r = CliRunner.run("topo", "validate",
                "../sim-topologies/src/test/resources/topology/bad/32-rate-without-unit.yaml");
        assertEquals(2, r.code());
        assertTrue(r.err().matches("collsim: \\.\\./sim-topologies/\\S+\\.yaml:\\d+: links\\[1\\]\\.rate: '370\\.8' has no unit.*\\s*"), r.err());
        CliRunner both = CliRunner.run("bench", "all_reduce", "--topology", "../topologies/hgx-h100.yaml", "--network", "roce");
        assertEquals(2, both.code());
        assertTrue(both.err().contains("--topology describes the whole system"), both.err());
        CliRunner show = CliRunner.run("topo", "show", "--topology", "../topologies/hgx-h100.yaml", "--network", "roce");
        assertEquals(2, show.code(), "topo show used to ignore --network beside --topology");
        assertEquals(both.err(), show.err(), "one check, one message");
        // --nodes joins copies of the file's node through its NICs: a file without NICs says so.
        CliRunner noNics = CliRunner.run("bench", "all_reduce", "--topology", "../topologies/hgx-h100.yaml", "--nodes", "2");
        assertEquals(2, noNics.code());
        assertTrue(noNics.err().contains("joins copies of the node through its NICs; the file has none"), noNics.err());
    }
}
