package dev.collsim.topologies.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class NcclXmlImportTest {
    private static final NcclXmlImport.Options DEFAULTS = new NcclXmlImport.Options(null, null, null, Rate.gigabytesPerSecond(40));

    private static Communicator imported(String resource, NcclXmlImport.Options options) throws IOException {
        Path file = Path.of("src/test/resources/topology/xml", resource);
        String yaml = NcclXmlImport.toYaml(Files.readString(file), file.toString(), options);
        return TopologyFile.read(new StringReader(yaml), resource);
    }

    private static double rate(Fabric f, String from, String to) {
        for (Link l : f.links()) {
            if (f.device(l.from()).name().equals(from) && f.device(l.to()).name().equals(to)) {
                return l.rate().gigabytesPerSecond();
            }
        }
        throw new AssertionError("no link " + from + " -> " + to);
    }

    @Test
    void anHgxDumpBecomesWhatThePresetIs() throws IOException {
        Communicator dump = imported("hgx-h100-dump.xml", DEFAULTS);
        Communicator preset = SystemPreset.byName("hgx-h100").build(1, 8, null, WhatIf.NONE);
        assertEquals(8, dump.nRanks());
        assertEquals(LinkType.NVLINK, dump.nccl().intraLink());
        assertNotNull(dump.nccl().nvlsGraph(), "18 NVLinks to NVSwitch chips of an H100: NVLS");
        assertEquals(preset.nccl().ring().channels(), dump.nccl().ring().channels());
        // The chips' 4 + 5 + 5 + 4 links add up to the preset's 18-link bundle; Gen5 x16 from link_speed and link_width.
        assertEquals(rate(preset.fabric(), "gpu0", "nvswitch"), rate(dump.fabric(), "gpu0", "nvswitch"), 1e-9);
        assertEquals(54.4, rate(dump.fabric(), "gpu5", "pcie2"), 1e-9);
        assertEquals(40, rate(dump.fabric(), "cpu0", "cpu1"), 1e-9);
    }

    @Test
    void bridgedPcieGpusKeepTheirPairsAndTheirNegotiatedWidths() throws IOException {
        Communicator c = imported("pcie-a100-bridged-pairs.xml", DEFAULTS);
        assertNull(c.nccl().nvlsGraph());
        assertEquals(80, rate(c.fabric(), "gpu2", "gpu3"), 1e-9, "NV4 bridge: 4 NVLink3 links of 20 GB/s");
        assertEquals(27.2, rate(c.fabric(), "gpu2", "pcie1"), 1e-9, "Gen4 x16");
        assertEquals(13.6, rate(c.fabric(), "gpu3", "pcie1"), 1e-9, "the dump says x8");
        Communicator overridden = imported("pcie-a100-bridged-pairs.xml",
                new NcclXmlImport.Options(GpuModel.H100_SXM, Rate.gigabytesPerSecond(25), Rate.gigabytesPerSecond(50), Rate.gigabytesPerSecond(40)));
        assertEquals(100, rate(overridden.fabric(), "gpu0", "gpu1"), 1e-9);
        assertEquals(50, rate(overridden.fabric(), "gpu3", "pcie1"), 1e-9);
    }

    @Test
    void badDumpsAreOneLineErrorsWithTheLine() {
        String[][] cases = {
                {"<system version=\"1\">\n  <cpu>\n</system>\n", "x.xml:3: not well-formed XML"},
                {"<topology/>\n", "x.xml:1: <topology>; expected <system>"},
                {"<system>\n <cpu>\n  <pci busid=\"0000:01:00.0\" link_speed=\"16.0 GT/s\" link_width=\"16\">\n   <gpu sm=\"90\"/>\n  </pci>\n </cpu>\n</system>\n",
                        "x.xml:4: <gpu> has no dev attribute"},
                {"<system>\n <cpu>\n  <pci busid=\"0000:01:00.0\" link_speed=\"16.0 GT/s\" link_width=\"16\">\n   <gpu dev=\"0\" sm=\"75\"/>\n  </pci>\n </cpu>\n</system>\n",
                        "x.xml:4: sm=\"75\" is not a GPU collsim models; give --gpu"},
                {"<system>\n <cpu>\n  <pci busid=\"0000:01:00.0\" link_speed=\"fast\" link_width=\"16\">\n   <gpu dev=\"0\" sm=\"90\"/>\n  </pci>\n </cpu>\n</system>\n",
                        "x.xml:3: link_speed 'fast'"},
                {"<system>\n <cpu>\n  <pci busid=\"0000:01:00.0\" link_speed=\"16.0 GT/s\" link_width=\"16\">\n   <gpu dev=\"0\" sm=\"90\">\n"
                        + "    <nvlink target=\"0000:99:00.0\" count=\"2\" tclass=\"0x030200\"/>\n   </gpu>\n  </pci>\n </cpu>\n</system>\n",
                        "x.xml:5: <nvlink target=\"0000:99:00.0\"> is neither a GPU of this dump nor an NVSwitch"},
                {"<system version=\"1\">\n <cpu numaid=\"0\"/>\n</system>\n", "x.xml:1: no <gpu> under any <cpu>"},
                {"<!DOCTYPE system [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<system>&x;</system>\n", "x.xml:"},
        };
        for (String[] c : cases) {
            InputException e = assertThrows(InputException.class, () -> NcclXmlImport.toYaml(c[0], "x.xml", DEFAULTS), c[1]);
            assertTrue(e.getMessage().startsWith(c[1]), "expected '" + c[1] + "' in: " + e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        }
    }

    /**
     * The dump's NICs (a {@code <pci>} holding a {@code <nic>}) are kept under the PCIe switch NCCL
     * found them on, two GPUs to a NIC here, so that the node joins others through them.
     */
    @Test
    void theDumpsNicsAreKeptWhereNcclFoundThem() throws IOException {
        Path file = Path.of("src/test/resources/topology/xml", "hgx-h100-dump.xml");
        dev.collsim.topologies.systems.FabricSystem node = TopologyFile.readSystem(new StringReader(
                NcclXmlImport.toYaml(Files.readString(file), file.toString(), DEFAULTS)), "hgx-h100-dump.xml");
        Fabric f = node.fabric();
        assertEquals(4, f.devicesOfKind(dev.collsim.core.fabric.DeviceKind.NIC).size());
        assertEquals(rate(f, "nic0", "pcie0"), rate(f, "gpu0", "pcie0"), 1e-9);
        Communicator joined = dev.collsim.topologies.systems.NodeCopies.join(node, 2, dev.collsim.topologies.catalog.NetworkPreset.IB_NDR,
                WhatIf.NONE).communicator();
        assertEquals(16, joined.nRanks());
        assertEquals(2, joined.nNodes());
    }
}
