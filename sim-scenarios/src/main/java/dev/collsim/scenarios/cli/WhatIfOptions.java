package dev.collsim.scenarios.cli;

import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.systems.WhatIf;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The what-if knobs shared by every command that builds a system. */
final class WhatIfOptions {
    @Option(names = "--nic-bw", paramLabel = "RATE", description = "line rate of each NIC, e.g. 400Gb/s or 50GB/s (default: the network's)")
    String nicBw;

    @Option(names = "--nics-per-gpu", paramLabel = "K", description = "NICs per GPU (default: the network's)")
    Integer nicsPerGpu;

    @Option(names = "--oversubscription", paramLabel = "A:B", defaultValue = "1:1",
            description = "leaf downlinks to spine uplinks, e.g. 2:1 (default: ${DEFAULT-VALUE}, non-blocking)")
    String oversubscription;

    @Option(names = "--spines", paramLabel = "N", defaultValue = "1",
            description = "spine switches; with more than one, traffic that changes rails picks one by ECMP hash (default: ${DEFAULT-VALUE})")
    int spines;

    @Option(names = "--gdr", paramLabel = "on|off", defaultValue = "on",
            description = "GPUDirect RDMA: off sends every transfer across nodes through host memory at both ends (default: ${DEFAULT-VALUE})")
    String gdr;

    @Option(names = "--scale", paramLabel = "CLASS=F,...", description = "scale link rates by class: nvlink, pcie, network, e.g. nvlink=0.5")
    String scale;

    @Option(names = "--scale-latency", paramLabel = "CLASS=F,...", description = "scale link latencies by class, e.g. network=2")
    String scaleLatency;

    @Option(names = "--degrade", paramLabel = "A:B=F,...",
            description = "scale one connection's rate, named by its two devices (see --links), e.g. n0.gpu3:n0.pcie3=0.5 for PCIe x8")
    String degrade;

    @Option(names = "--overrides", paramLabel = "FILE", description = "rate and latency factors fitted by collsim calibrate (multiplied with --scale)")
    java.nio.file.Path overrides;

    @Option(names = "--link-down", paramLabel = "A:B,...", description = "take connections down, e.g. n0.nic3:leaf3")
    String linkDown;

    WhatIf toWhatIf() {
        Rate nic = nicBw == null ? null : Flags.parse("--nic-bw", () -> Rate.parse(nicBw));
        int nics = nicsPerGpu == null ? 0 : nicsPerGpu;
        if (nicsPerGpu != null && nicsPerGpu < 1) {
            throw new dev.collsim.core.input.InputException("--nics-per-gpu " + nicsPerGpu + ": expected 1 or more");
        }
        return new WhatIf(nic, nics, WhatIf.parseRatio("--oversubscription", oversubscription), spines, BenchCommand.onOff("--gdr", gdr),
                combined(WhatIf.parseScales("--scale", scale), "scale"),
                combined(WhatIf.parseScales("--scale-latency", scaleLatency), "scale-latency"), linkEdits());
    }

    /** The command line's factors times the override file's (its field {@code field}: CLASS=F,...). */
    private java.util.Map<WhatIf.LinkClass, Double> combined(java.util.Map<WhatIf.LinkClass, Double> given, String field) {
        if (overrides == null) {
            return given;
        }
        java.util.Map<String, dev.collsim.topologies.file.Doc> f;
        try (java.io.Reader r = java.nio.file.Files.newBufferedReader(overrides)) {
            dev.collsim.topologies.file.Doc top = dev.collsim.topologies.file.Doc.parse(r, overrides.toString(),
                    "an override file from collsim calibrate");
            f = top.fields(java.util.Set.of("version", "scale", "scale-latency"));
            if (dev.collsim.topologies.file.Doc.required(f, "version", top).integer() != 1) {
                throw f.get("version").error("expected 1");
            }
        } catch (java.io.IOException e) {
            throw new dev.collsim.core.input.InputException(overrides + ": cannot read (" + e.getMessage() + ")");
        }
        java.util.Map<WhatIf.LinkClass, Double> out = new java.util.EnumMap<>(WhatIf.LinkClass.class);
        out.putAll(given);
        if (f.containsKey(field)) {
            f.get(field).parse(text -> WhatIf.parseScales(field, text)).forEach((c, v) -> out.merge(c, v, (a, b) -> a * b));
        }
        return out;
    }

    private List<LinkEdit> linkEdits() {
        List<LinkEdit> edits = new ArrayList<>(WhatIf.parseLinkEdits("--degrade", degrade, false));
        edits.addAll(WhatIf.parseLinkEdits("--link-down", linkDown, true));
        return edits;
    }
}
