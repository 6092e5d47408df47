package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nvidia-smi topo -m text in, a topology file out, and the seeds' example end to end. */
class TopoImportTest {
    private static double busbw(Path topology) {
        return CliRunner.busbw("bench", "all_reduce", "--topology", topology.toString(), "-b", "1G", "-e", "1G", "--format", "csv");
    }

    private static Path imported(Path dir, String name, String matrix) throws IOException {
        Path text = dir.resolve(name + ".txt");
        Files.writeString(text, matrix);
        Path yaml = dir.resolve(name + ".yaml");
        CliRunner r = CliRunner.run("topo", "import", text.toString(), "--output", yaml.toString());
        assertEquals(0, r.code(), r.err());
        return yaml;
    }

    /** The seeds' 4-GPU box: across the four GPUs all_reduce is far slower than across one NVLink pair. */
    @Test
    void theSeedsExampleFromItsTopoMatrix(@TempDir Path dir) throws IOException {
        Path four = dir.resolve("four.yaml");
        CliRunner r = CliRunner.run("topo", "import", "../topologies/seeds-4gpu.topo-m.txt", "--output", four.toString());
        assertEquals(0, r.code(), r.err());
        CliRunner show = CliRunner.run("topo", "show", "--topology", four.toString(), "--format", "csv");
        assertTrue(show.out().contains("GPU0,X,NV4,SYS,SYS") && show.out().contains("GPU3,SYS,SYS,NV4,X"), show.out());
        Path pair = imported(dir, "pair", "        GPU0  GPU1\nGPU0     X    NV4\nGPU1    NV4    X\n");
        double across = busbw(four);
        double within = busbw(pair);
        assertTrue(across < within / 2, "4 GPUs " + across + " GB/s against one pair " + within + " GB/s");
    }

    /** GeForce cards have no peer-to-peer: imported as such, an all_reduce stages through host memory and is slower. */
    @Test
    void geforceCardsImportWithoutPeerToPeer(@TempDir Path dir) throws IOException {
        Path text = dir.resolve("two.txt");
        Files.writeString(text, "        GPU0  GPU1  CPU Affinity\nGPU0     X    PIX   0-15\nGPU1    PIX    X    0-15\n");
        Path geforce = dir.resolve("geforce.yaml");
        CliRunner r = CliRunner.run("topo", "import", text.toString(), "--gpu", "rtx4090", "--output", geforce.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.readString(geforce).contains("\np2p: false"), Files.readString(geforce));
        Path a100 = imported(dir, "a100", Files.readString(text));
        assertTrue(!Files.readString(a100).contains("p2p:"), Files.readString(a100));
        assertTrue(busbw(geforce) < busbw(a100), busbw(geforce) + " GB/s through host memory, " + busbw(a100) + " peer to peer");
    }

    @Test
    void allNv18IsAnNvswitchNode(@TempDir Path dir) throws IOException {
        StringBuilder m = new StringBuilder("      ");
        for (int i = 0; i < 8; i++) {
            m.append(" GPU").append(i);
        }
        m.append("  CPU Affinity\n");
        for (int i = 0; i < 8; i++) {
            m.append("GPU").append(i);
            for (int j = 0; j < 8; j++) {
                m.append(i == j ? "   X" : " NV18");
            }
            m.append("  0-55\n");
        }
        Path yaml = imported(dir, "hgx", m.toString());
        assertTrue(Files.readString(yaml).contains("kind: nvswitch"), Files.readString(yaml));
    }

    @Test
    void malformedMatricesAreOneLineErrors(@TempDir Path dir) throws IOException {
        String[][] cases = {
            {"no header here\n", ":1: no GPU0 header"},
            {"      GPU0 GPU1\nGPU0  X  NV4\nGPU1  NV5  X\n", "GPU0 to GPU1 is NV4 but GPU1 to GPU0 is NV5"},
            {"      GPU0 GPU1\nGPU0  X  FAST\nGPU1  FAST  X\n", ":2: GPU0 to GPU1: unknown label 'FAST'"},
            {"      GPU0 GPU1\nGPU0  X\n", ":2: GPU0 has 1 labels"},
            {"      GPU0 GPU1\nGPU0  X  NV4\n", "the matrix has 1 GPU rows"},
        };
        for (String[] c : cases) {
            Path text = dir.resolve("bad.txt");
            Files.writeString(text, c[0]);
            CliRunner r = CliRunner.run("topo", "import", text.toString());
            assertEquals(2, r.code(), r.err());
            assertTrue(r.err().contains(c[1]) && r.err().strip().lines().count() == 1, r.err());
        }
    }

    /** NCCL's XML dump: a GPU that trained at PCIe x8 is what limits the ring across two bridged pairs. */
    @Test
    void anNcclTopologyDumpWithAnX8Gpu(@TempDir Path dir) {
        Path yaml = dir.resolve("pairs.yaml");
        CliRunner r = CliRunner.run("topo", "import", "../sim-topologies/src/test/resources/topology/xml/pcie-a100-bridged-pairs.xml",
                "-O", yaml.toString());
        assertEquals(0, r.code(), r.err());
        CliRunner show = CliRunner.run("topo", "show", "--topology", yaml.toString(), "--format", "csv");
        assertTrue(show.out().contains("GPU0,X,NV4,PHB,PHB"), show.out());
        CliRunner links = CliRunner.run("bench", "all_reduce", "--topology", yaml.toString(), "-b", "256M", "-e", "256M", "--links");
        assertEquals(0, links.code(), links.err());
        String busiest = links.out().lines().filter(l -> !l.startsWith("#") && l.contains("PCIe")).findFirst().orElseThrow();
        assertTrue(busiest.matches("\\s*gpu3\\s+pcie1\\s+PCIe\\s+13\\.6\\s.*"), links.out());

        CliRunner hgx = CliRunner.run("topo", "import", "../sim-topologies/src/test/resources/topology/xml/hgx-h100-dump.xml",
                "-O", dir.resolve("hgx.yaml").toString());
        assertEquals(0, hgx.code(), hgx.err());
        assertEquals(busbw(dir.resolve("hgx.yaml")), busbw(Path.of("../topologies/hgx-h100.yaml")), 1e-9,
                "the dump of an HGX H100 runs as the hand-written file of one does");
    }

    @Test
    void aBrokenDumpIsOneLineAndNoOutputFile(@TempDir Path dir) throws IOException {
        Path xml = dir.resolve("broken.xml");
        Files.writeString(xml, "<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n");
        Path out = dir.resolve("out.yaml");
        CliRunner r = CliRunner.run("topo", "import", xml.toString(), "-O", out.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("collsim: " + xml + ":3: not well-formed XML") && r.err().lines().count() == 1, r.err());
        assertTrue(Files.notExists(out));
    }

    /** NCCL writes a NIC it found no PCIe path for (a cloud VM's) under its CPU: it is imported there, and carries a 2-node run. */
    @Test
    void aNicRightUnderItsCpuIsJoinedToIt(@TempDir Path dir) throws IOException {
        Path yaml = dir.resolve("vm.yaml");
        CliRunner r = CliRunner.run("topo", "import", "src/test/resources/saved-files/nic-under-cpu.xml", "--output", yaml.toString());
        assertEquals(0, r.code(), r.err());
        String text = Files.readString(yaml);
        assertTrue(text.contains("{name: nic0, kind: nic}"), text);
        assertTrue(text.contains("on the CPU (NCCL's LOC_BW)"), text);
        CliRunner two = CliRunner.run("bench", "all_reduce", "--topology", yaml.toString(), "--nodes", "2", "-b", "1M", "-e", "1M");
        assertEquals(0, two.code(), two.err());
    }
}
