package dev.collsim.topologies.file;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.PcieGeneration;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads the topology NCCL writes with {@code NCCL_TOPO_DUMP_FILE} and writes it in the project's
 * topology format.
 *
 * <p>{@code <cpu>} elements become CPU sockets, joined pairwise by the socket link; a {@code <pci>}
 * with a {@code <gpu>} inside becomes that GPU, and one with further {@code <pci>} below it and a GPU
 * somewhere under it a PCIe switch; each is linked to its parent at the rate its {@code link_speed}
 * and {@code link_width} give. {@code <nvlink>} elements to an NVSwitch ({@code tclass 0x068000}) add
 * up, over the switch chips, to one link to a single NVSwitch device (as the presets have it); those
 * to another GPU join the two directly. A {@code <pci>} with a {@code <nic>} inside becomes a NIC
 * where NCCL found it (its ports, the {@code <net>}s, as one device), so that {@code --nodes N} can
 * join copies of the node through them; a {@code <nic>} right under a {@code <cpu>}, where NCCL puts a NIC
 * it found no PCIe path for, is joined to that CPU at NCCL's local bandwidth; other PCI devices are left
 * out. A GPU or NIC anywhere else (a GPU outside a {@code <pci>}, a NIC sharing a GPU's) is refused, by
 * its dev or port name, rather than left out of the fabric.
 */
public final class NcclXmlImport {
    private static final String NVSWITCH_CLASS = "0x068000";
    /** NCCL's LOC_BW (graph/topo.h: 5000 GB/s): a link that is never a path's bottleneck. */
    private static final Rate LOCAL_RATE = Rate.gigabytesPerSecond(5000);
    private static final Pattern SPEED = Pattern.compile("\\s*(\\d{1,3}(\\.\\d+)?)\\s*GT/s.*");

    /**
     * @param gpu        the GPU model, or null to take it from the dump's {@code sm}
     * @param nvlinkRate per NVLink link and direction, or null for the GPU's
     * @param pcieRate   every PCIe link, or null for the rates the dump gives
     * @param socketRate the link between two CPU sockets, per direction
     */
    public record Options(GpuModel gpu, Rate nvlinkRate, Rate pcieRate, Rate socketRate) {}

    private record Element(String name, Map<String, String> attributes, int line, List<Element> children) {
        String attribute(String file, String key) {
            String v = attributes.get(key);
            if (v == null || v.isBlank()) {
                throw new InputException(file + ":" + line + ": <" + name + "> has no " + key + " attribute");
            }
            return v.trim();
        }

        List<Element> all(String childName) {
            return children.stream().filter(c -> c.name.equals(childName)).toList();
        }

        /** Whether a GPU or a NIC sits in or below it: what the imported fabric keeps. */
        boolean holdsGpuOrNic() {
            return !all("gpu").isEmpty() || !all("nic").isEmpty() || all("pci").stream().anyMatch(Element::holdsGpuOrNic);
        }
    }

    private final String file;
    private final Options options;
    private final StringBuilder devices = new StringBuilder();
    private final StringBuilder links = new StringBuilder();
    private final Map<Integer, Element> gpus = new TreeMap<>();
    private final Map<String, String> gpuByBusId = new LinkedHashMap<>();
    /** The {@code <gpu>} and {@code <nic>} elements that became devices. */
    private final Map<Element, Boolean> placed = new IdentityHashMap<>();
    private int switches;
    private int nics;

    private NcclXmlImport(String file, Options options) {
        this.file = file;
        this.options = options;
    }

    public static String toYaml(String xml, String file, Options options) {
        return new NcclXmlImport(file, options).convert(parse(xml, file));
    }

    private String convert(Element system) {
        if (!system.name.equals("system")) {
            throw new InputException(file + ":" + system.line + ": <" + system.name + ">; expected <system>, the root NCCL writes");
        }
        List<Element> cpus = system.all("cpu");
        for (int c = 0; c < cpus.size(); c++) {
            String cpu = "cpu" + c;
            devices.append("  - {name: ").append(cpu).append(", kind: cpu}\n");
            for (Element pci : cpus.get(c).all("pci")) {
                visit(pci, cpu);
            }
            // A NIC NCCL found no PCIe path for (a virtual NIC, a cloud VM's) it writes under its CPU and joins
            // to it at LOC_BW, its "local" bandwidth that never bounds a path; so here, its ports as one device.
            for (Element nic : cpus.get(c).all("nic")) {
                placed.put(nic, true);
                String name = "nic" + nics++;
                devices.append("  - {name: ").append(name).append(", kind: nic}\n");
                ImportedYaml.link(links, name, cpu, LOCAL_RATE, "0ns", "on the CPU (NCCL's LOC_BW)");
            }
        }
        if (gpus.isEmpty()) {
            throw new InputException(file + ":" + system.line + ": no <gpu> under any <cpu>; expected NCCL's topology dump");
        }
        refuseUnplaced(system, system.name);
        ImportedYaml.socketLinks(links, cpus.size(), options.socketRate());
        GpuModel gpu = options.gpu() != null ? options.gpu() : model(gpus.values().iterator().next());
        // A card without NVLink (--gpu l40s on a dump with NVLinks) has no rate to give them: --nvlink-rate must.
        Rate perNvlink = options.nvlinkRate() != null ? options.nvlinkRate() : gpu.nvlink() != null ? gpu.nvlink().effectiveRate() : null;
        String nvlinkLabel = gpu.nvlink() != null ? gpu.nvlink().label() : "NVLink";
        boolean nvswitch = false;
        for (Map.Entry<Integer, Element> g : gpus.entrySet()) {
            String name = "gpu" + g.getKey();
            String busId = busIdOf(name);
            int toSwitch = 0;
            for (Element nv : g.getValue().all("nvlink")) {
                if (perNvlink == null) {
                    throw new InputException(file + ":" + nv.line + ": " + name + " has NVLinks, but a " + gpu.label()
                            + " has none to take their rate from; give --nvlink-rate, or the GPU the dump is of with --gpu");
                }
                int count = count(nv);
                String target = nv.attribute(file, "target").toLowerCase(Locale.ROOT);
                if (NVSWITCH_CLASS.equals(nv.attributes.get("tclass"))) {
                    toSwitch += count;
                    if (toSwitch > ImportedYaml.MAX_NVLINKS) {
                        throw new InputException(file + ":" + nv.line + ": " + name + "'s NVLinks to NVSwitches add up to " + toSwitch
                                + "; no GPU has more than " + ImportedYaml.MAX_NVLINKS);
                    }
                } else if (gpuByBusId.containsKey(target)) {
                    String other = gpuByBusId.get(target);
                    if (other.equals(name)) {
                        throw new InputException(file + ":" + nv.line + ": <nvlink target=\"" + target + "\"> is " + name + " itself");
                    }
                    int otherDev = Integer.parseInt(other.substring(3));
                    int back = nvlinksTo(gpus.get(otherDev), busId);
                    if (back != count) {
                        throw new InputException(file + ":" + nv.line + ": " + name + " lists " + count + " NVLink(s) to " + other
                                + " but " + other + " lists " + back + " back; NCCL writes both sides of a pair");
                    }
                    if (otherDev > g.getKey()) { // each side lists the pair; write it once
                        ImportedYaml.link(links, name, other, perNvlink.times(count), "250ns", nvlinkLabel + " x" + count);
                    }
                } else {
                    throw new InputException(file + ":" + nv.line + ": <nvlink target=\"" + target
                            + "\"> is neither a GPU of this dump nor an NVSwitch (tclass " + NVSWITCH_CLASS + ")");
                }
            }
            if (toSwitch > 0) {
                nvswitch = true;
                ImportedYaml.link(links, name, "nvswitch", perNvlink.times(toSwitch), "250ns", nvlinkLabel + " x" + toSwitch);
            }
        }
        StringBuilder sb = new StringBuilder();
        ImportedYaml.header(sb, file, "NCCL topology XML", gpu);
        // GPUs first and by dev, so that ranks follow NCCL's device numbers whatever the PCIe tree.
        gpus.keySet().forEach(dev -> sb.append("  - {name: gpu").append(dev).append(", kind: gpu}\n"));
        sb.append(devices);
        if (nvswitch) {
            ImportedYaml.nvswitch(sb, gpu);
        }
        return sb.append("links:\n").append(links).toString();
    }

    /**
     * Refuses a GPU or NIC that no PCIe path places (a {@code <gpu>} or {@code <nic>} outside a {@code <pci>} under a
     * {@code <cpu>}, a NIC in a GPU's {@code <pci>}, a device below a GPU's): left out, the fabric would have fewer
     * GPUs or NICs than the machine without a word.
     */
    private void refuseUnplaced(Element e, String path) {
        for (Element child : e.children()) {
            if ((child.name.equals("gpu") || child.name.equals("nic")) && !placed.containsKey(child)) {
                String net = child.all("net").stream().map(n -> n.attributes.get("name")).filter(Objects::nonNull).findFirst()
                        .map(n -> " (" + n + ")").orElse("");
                String what = child.name.equals("gpu") ? "<gpu dev=\"" + child.attributes.getOrDefault("dev", "?") + "\">" : "<nic>" + net;
                throw new InputException(file + ":" + child.line + ": " + what + " under " + path + " is on no PCIe path collsim can"
                        + " place; it places each GPU and NIC by a <pci> of its own under a <cpu>, as NCCL writes those it found on PCIe");
            }
            refuseUnplaced(child, path + "/" + child.name);
        }
    }

    private int nvlinksTo(Element gpu, String busId) {
        return gpu.all("nvlink").stream().filter(nv -> busId.equals(nv.attributes.getOrDefault("target", "").trim().toLowerCase(Locale.ROOT)))
                .mapToInt(this::count).sum();
    }

    private String busIdOf(String gpuName) {
        return gpuByBusId.entrySet().stream().filter(e -> e.getValue().equals(gpuName)).findFirst().orElseThrow().getKey();
    }

    private void visit(Element pci, String parent) {
        List<Element> gpu = pci.all("gpu");
        if (gpu.size() > 1) {
            throw new InputException(file + ":" + gpu.get(1).line + ": a second <gpu> in one <pci>; NCCL writes one GPU per PCI function");
        }
        if (!gpu.isEmpty()) {
            Element g = gpu.get(0);
            placed.put(g, true);
            int dev = integer(g, "dev");
            if (dev < 0) {
                throw new InputException(file + ":" + g.line + ": <gpu> dev=\"" + dev + "\": expected 0 or more");
            }
            String name = "gpu" + dev;
            if (gpus.put(dev, g) != null) {
                throw new InputException(file + ":" + g.line + ": GPU dev=\"" + dev + "\" appears twice");
            }
            String busId = pci.attribute(file, "busid").toLowerCase(Locale.ROOT);
            String before = gpuByBusId.put(busId, name);
            if (before != null) {
                throw new InputException(file + ":" + pci.line + ": busid \"" + busId + "\" again (" + before + " has it)");
            }
            ImportedYaml.link(links, name, parent, pcieRate(pci), "500ns", "PCIe");
        } else if (!pci.all("nic").isEmpty()) {
            pci.all("nic").forEach(nic -> placed.put(nic, true)); // its ports as one device
            String name = "nic" + nics++;
            devices.append("  - {name: ").append(name).append(", kind: nic}\n");
            ImportedYaml.link(links, name, parent, pcieRate(pci), "500ns", "PCIe");
        } else if (pci.holdsGpuOrNic()) {
            String name = "pcie" + switches++;
            devices.append("  - {name: ").append(name).append(", kind: pcie-switch}\n");
            ImportedYaml.link(links, name, parent, pcieRate(pci), "500ns", "PCIe");
            for (Element child : pci.all("pci")) {
                visit(child, name);
            }
        }
    }

    private Rate pcieRate(Element pci) {
        if (options.pcieRate() != null) {
            return options.pcieRate();
        }
        Matcher m = SPEED.matcher(pci.attribute(file, "link_speed"));
        if (!m.matches()) {
            throw new InputException(file + ":" + pci.line + ": link_speed '" + pci.attributes.get("link_speed")
                    + "': expected e.g. '32.0 GT/s PCIe' (or give --pcie-rate)");
        }
        double speed = Double.parseDouble(m.group(1));
        int width = integer(pci, "link_width");
        if (!(speed > 0) || width < 1 || width > 32) {
            throw new InputException(file + ":" + pci.line + ": <pci> link_speed \"" + pci.attributes.get("link_speed") + "\" link_width=\""
                    + width + "\": expected a positive speed and a width of 1 to 32 lanes (or give --pcie-rate)");
        }
        return PcieGeneration.effectiveRate(speed, width);
    }

    private GpuModel model(Element gpu) {
        return switch (integer(gpu, "sm")) {
            case 80 -> GpuModel.A100_SXM;
            case 90 -> GpuModel.H100_SXM;
            case 100 -> GpuModel.B200;
            case 103 -> GpuModel.GB300;
            default -> throw new InputException(file + ":" + gpu.line + ": sm=\"" + gpu.attributes.get("sm")
                    + "\" is not a GPU collsim models; give --gpu");
        };
    }

    private int count(Element nvlink) {
        int c = integer(nvlink, "count");
        if (c < 1 || c > ImportedYaml.MAX_NVLINKS) {
            throw new InputException(file + ":" + nvlink.line + ": count=\"" + c + "\": expected 1 to " + ImportedYaml.MAX_NVLINKS);
        }
        return c;
    }

    private int integer(Element e, String key) {
        String v = e.attribute(file, key);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException ex) {
            throw new InputException(file + ":" + e.line + ": <" + e.name + "> " + key + "=\"" + v + "\": expected a whole number");
        }
    }

    /** The element tree, each element with the line it starts on; no DTDs or external entities. */
    private static Element parse(String xml, String file) {
        XMLInputFactory factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        List<Element> stack = new ArrayList<>();
        XMLStreamReader r = null;
        try {
            r = factory.createXMLStreamReader(new StringReader(xml));
            Element root = null;
            while (r.hasNext()) {
                int event = r.next();
                if (event == XMLStreamConstants.DTD) {
                    throw new InputException(file + ":" + r.getLocation().getLineNumber()
                            + ": a DOCTYPE; NCCL's dumps have none, and collsim reads no DTD or entity");
                }
                if (event == XMLStreamConstants.START_ELEMENT) {
                    Map<String, String> attributes = new LinkedHashMap<>();
                    for (int i = 0; i < r.getAttributeCount(); i++) {
                        attributes.put(r.getAttributeLocalName(i), r.getAttributeValue(i));
                    }
                    Element e = new Element(r.getLocalName(), attributes, r.getLocation().getLineNumber(), new ArrayList<>());
                    if (stack.isEmpty()) {
                        root = e;
                    } else {
                        stack.get(stack.size() - 1).children().add(e);
                    }
                    stack.add(e);
                } else if (event == XMLStreamConstants.END_ELEMENT) {
                    stack.remove(stack.size() - 1);
                }
            }
            if (root == null) {
                throw new InputException(file + ":1: no XML element; expected NCCL's topology dump");
            }
            return root;
        } catch (XMLStreamException e) {
            int line = e.getLocation() == null ? 1 : e.getLocation().getLineNumber();
            throw new InputException(file + ":" + line + ": not well-formed XML (" + e.getMessage().replaceAll("\\s+", " ")
                    .replaceFirst("^ParseError at \\[row,col\\]:\\[\\d+,\\d+\\] Message: ", "") + ")");
        } finally {
            if (r != null) {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // nothing was written; the reader held only the string
                }
            }
        }
    }
}
