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

    @Test
    void nvl72RacksRunAnAllReduce() {
        CliRunner r = CliRunner.run("bench", "all_reduce", "--system", "gb200-nvl72", "--nodes", "2", "-b", "16M", "-e", "16M",
                "--format", "csv");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().split("\n")[1].contains(",NVLSTree,Simple,24"), r.out());
    }
}
