package dev.collsim.scenarios.cli;

import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.input.Require;
import dev.collsim.core.units.Rate;
import dev.collsim.scenarios.validate.Calibration;
import dev.collsim.topologies.systems.WhatIf;
import java.nio.file.Path;
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
            description = "spine switches sharing the same spine capacity: each leaf's uplinks are split over them (N spines of 1/N the"
                    + " rate each, not N times the capacity), and traffic that changes rails picks one by ECMP hash (default: ${DEFAULT-VALUE})")
    int spines;

    @Option(names = "--gdr", paramLabel = "on|off", defaultValue = "on",
            description = "GPUDirect RDMA: off sends every transfer across nodes through host memory at both ends (default: ${DEFAULT-VALUE})")
    String gdr;

    @Option(names = "--gdr-flush", paramLabel = "on|off", defaultValue = "on",
            description = "the library's flush of what a NIC wrote into GPU memory before the GPU reads it, where the GPU needs one (NCCL"
                    + " on Ampere and earlier, RCCL on Instinct GPUs): off as NCCL_GDR_FLUSH_DISABLE=1 (default: ${DEFAULT-VALUE})")
    String gdrFlush;

    @Option(names = "--scale", paramLabel = "CLASS=F,...", description = "scale link rates by class: nvlink, pcie, network, e.g. nvlink=0.5")
    String scale;

    @Option(names = "--scale-latency", paramLabel = "CLASS=F,...", description = "scale link latencies by class, e.g. network=2")
    String scaleLatency;

    @Option(names = "--degrade", paramLabel = "A:B=F,...",
            description = "scale one connection's rate, named by its two devices (see --links), e.g. n0.gpu3:n0.pcie3=0.5 for PCIe x8")
    String degrade;

    @Option(names = "--overrides", paramLabel = "FILE", description = "rate and latency factors fitted by collsim calibrate (multiplied with --scale)")
    Path overrides;

    @Option(names = "--link-down", paramLabel = "A:B,...", description = "take connections down, e.g. n0.nic3:leaf3")
    String linkDown;

    WhatIf toWhatIf() {
        Rate nic = nicBw == null ? null : Flags.parse("--nic-bw", () -> Rate.parse(nicBw));
        int nics = nicsPerGpu == null ? 0 : Require.atLeastOne("--nics-per-gpu", nicsPerGpu);
        WhatIf knobs = new WhatIf(nic, nics, WhatIf.parseRatio("--oversubscription", oversubscription), spines,
                Flags.onOff("--gdr", gdr), Flags.onOff("--gdr-flush", gdrFlush), WhatIf.parseScales("--scale", scale), WhatIf.parseScales("--scale-latency", scaleLatency),
                linkEdits());
        if (overrides == null) {
            return knobs;
        }
        Calibration.Overrides fitted = Calibration.readOverrides(overrides);
        return knobs.scaledBy(fitted.rates(), fitted.latencies());
    }

    private List<LinkEdit> linkEdits() {
        List<LinkEdit> edits = new ArrayList<>(WhatIf.parseLinkEdits("--degrade", degrade, false));
        edits.addAll(WhatIf.parseLinkEdits("--link-down", linkDown, true));
        return edits;
    }
}
