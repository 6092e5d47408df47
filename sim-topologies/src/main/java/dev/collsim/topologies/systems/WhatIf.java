package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.core.units.Rate;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Changes to a preset system for what-if questions: another NIC, more NICs, an oversubscribed
 * spine, or a link class made faster or slower.
 *
 * @param nicLineRate      line rate of one NIC per direction, or null for the network's
 * @param nicsPerGpu       NICs per GPU, or 0 for the network's
 * @param oversubscription ratio of the leaves' downlinks to their uplinks to the spine (1 is non-blocking)
 * @param spines           spine switches: 1 is one switch with all the leaves' uplinks; more split them
 *                         evenly, and flows that change rails pick a spine by ECMP hash
 * @param gpuDirect        whether NICs read and write GPU memory directly (GPUDirect RDMA); without it
 *                         every transfer across nodes goes through host memory at both ends
 * @param gdrFlush         whether the library flushes what a NIC wrote into GPU memory before the GPU reads it, where
 *                         the GPU needs it (NCCL on Ampere and earlier, RCCL on Instinct GPUs); off as {@code
 *                         NCCL_GDR_FLUSH_DISABLE=1} turns it off
 * @param rateScale        per link class, a factor on its rate
 * @param latencyScale     per link class, a factor on its latency
 * @param linkEdits        single connections degraded or taken down, by device name; unlike the
 *                         knobs above these apply to topology files too
 */
public record WhatIf(Rate nicLineRate, int nicsPerGpu, double oversubscription, int spines, boolean gpuDirect, boolean gdrFlush,
                     Map<LinkClass, Double> rateScale, Map<LinkClass, Double> latencyScale, List<LinkEdit> linkEdits) {

    /** The classes of links a what-if can scale. */
    public enum LinkClass { NVLINK, PCIE, NETWORK }

    public static final WhatIf NONE = new WhatIf(null, 0, 1, 1, true, Map.of(), Map.of(), List.of());

    public WhatIf {
        if (nicsPerGpu < 0) {
            throw new InputException("--nics-per-gpu " + nicsPerGpu + ": expected 1 or more");
        }
        if (!(oversubscription >= 1) || Double.isInfinite(oversubscription)) {
            throw new InputException("--oversubscription: expected a ratio of at least 1:1, got " + oversubscription + ":1");
        }
        Require.atLeastOne("--spines", spines);
        rateScale = Map.copyOf(rateScale);
        latencyScale = Map.copyOf(latencyScale);
        linkEdits = List.copyOf(linkEdits);
    }

    /** The knobs with the library's flush as it is by default. */
    public WhatIf(Rate nicLineRate, int nicsPerGpu, double oversubscription, int spines, boolean gpuDirect,
                  Map<LinkClass, Double> rateScale, Map<LinkClass, Double> latencyScale, List<LinkEdit> linkEdits) {
        this(nicLineRate, nicsPerGpu, oversubscription, spines, gpuDirect, true, rateScale, latencyScale, linkEdits);
    }

    /** These knobs with each class's rate and latency factors multiplied by the given ones (fitted constants, say). */
    public WhatIf scaledBy(Map<LinkClass, Double> rates, Map<LinkClass, Double> latencies) {
        return new WhatIf(nicLineRate, nicsPerGpu, oversubscription, spines, gpuDirect, gdrFlush, multiplied(rateScale, rates),
                multiplied(latencyScale, latencies), linkEdits);
    }

    private static Map<LinkClass, Double> multiplied(Map<LinkClass, Double> base, Map<LinkClass, Double> by) {
        Map<LinkClass, Double> out = new EnumMap<>(LinkClass.class);
        out.putAll(base);
        by.forEach((c, v) -> out.merge(c, v, (a, b) -> a * b));
        return out;
    }

    /**
     * The knobs in force as their flags would give them, e.g. {@code --nic-bw 25 GB/s, --scale
     * nvlink=0.5}: for a result's header and meta, so that two saved results can be told apart. Empty
     * when none is set.
     */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (nicLineRate != null) {
            parts.add("--nic-bw " + nicLineRate);
        }
        if (nicsPerGpu > 0) {
            parts.add("--nics-per-gpu " + nicsPerGpu);
        }
        if (oversubscription != 1) {
            parts.add("--oversubscription " + number(oversubscription) + ":1");
        }
        if (spines != 1) {
            parts.add("--spines " + spines);
        }
        if (!gpuDirect) {
            parts.add("--gdr off");
        }
        if (!gdrFlush) {
            parts.add("--gdr-flush off");
        }
        if (!rateScale.isEmpty()) {
            parts.add("--scale " + scales(rateScale));
        }
        if (!latencyScale.isEmpty()) {
            parts.add("--scale-latency " + scales(latencyScale));
        }
        List<String> degraded = linkEdits.stream().filter(e -> !e.isDown()).map(e -> e.a() + ":" + e.b() + "=" + number(e.factor())).toList();
        List<String> down = linkEdits.stream().filter(LinkEdit::isDown).map(e -> e.a() + ":" + e.b()).toList();
        if (!degraded.isEmpty()) {
            parts.add("--degrade " + String.join(",", degraded));
        }
        if (!down.isEmpty()) {
            parts.add("--link-down " + String.join(",", down));
        }
        return String.join(", ", parts);
    }

    /** The knobs set that act only on the network between nodes, by flag: nothing to act on where everything stays in one node. */
    public List<String> networkOnly() {
        List<String> flags = new ArrayList<>();
        if (nicLineRate != null) {
            flags.add("--nic-bw");
        }
        if (nicsPerGpu > 0) {
            flags.add("--nics-per-gpu");
        }
        if (oversubscription != 1) {
            flags.add("--oversubscription");
        }
        if (spines != 1) {
            flags.add("--spines");
        }
        if (!gpuDirect) {
            flags.add("--gdr off");
        }
        if (!gdrFlush) {
            flags.add("--gdr-flush off");
        }
        if (rateScale.containsKey(LinkClass.NETWORK) || latencyScale.containsKey(LinkClass.NETWORK)) {
            flags.add("network scaling");
        }
        return flags;
    }

    private static String scales(Map<LinkClass, Double> scales) {
        return scales.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + "=" + number(e.getValue())).collect(Collectors.joining(","));
    }

    /** A factor as a user would type it: no trailing zeros. */
    private static String number(double v) {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /**
     * Whether a knob is set that changes what is inside a node (NVLink or PCIe rates and latencies,
     * NICs per GPU, GPUDirect): a topology file states those itself.
     */
    public boolean changesNode() {
        return nicsPerGpu > 0 || !gpuDirect || rateScale.keySet().stream().anyMatch(c -> c != LinkClass.NETWORK)
                || latencyScale.keySet().stream().anyMatch(c -> c != LinkClass.NETWORK);
    }

    /** Whether any knob that only a preset system has is set (everything but the link edits and the library's flush). */
    public boolean changesPreset() {
        return !new WhatIf(nicLineRate, nicsPerGpu, oversubscription, spines, gpuDirect, rateScale, latencyScale, List.of()).equals(NONE);
    }

    /**
     * Parses {@code A:B=F,...} ({@code --degrade}) or, with {@code down}, {@code A:B,...} ({@code --link-down}):
     * connections named by the devices at their two ends.
     */
    public static List<LinkEdit> parseLinkEdits(String flag, String text, boolean down) {
        List<LinkEdit> out = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        String expected = down ? "DEVICE:DEVICE, e.g. n0.gpu3:n0.pcie3" : "DEVICE:DEVICE=FACTOR, e.g. n0.gpu3:n0.pcie3=0.5";
        for (String item : text.split(",")) {
            String[] kv = item.split("=", -1);
            String[] ends = kv[0].split(":", -1);
            if (kv.length != (down ? 1 : 2) || ends.length != 2 || ends[0].isBlank() || ends[1].isBlank()) {
                throw new InputException(flag + " '" + item + "': expected " + expected);
            }
            double factor = down ? 0 : positiveFactor(flag, item, kv[1], " (use --link-down to remove a link)");
            out.add(new LinkEdit(ends[0].trim(), ends[1].trim(), factor));
        }
        return out;
    }

    public double rate(LinkClass c) {
        return rateScale.getOrDefault(c, 1.0);
    }

    public double latency(LinkClass c) {
        return latencyScale.getOrDefault(c, 1.0);
    }

    /** Parses {@code 2:1} (or {@code 2}) into 2.0. */
    public static double parseRatio(String flag, String text) {
        String[] parts = text.trim().split(":", -1);
        try {
            if (parts.length > 2) {
                throw new NumberFormatException();
            }
            double a = Double.parseDouble(parts[0]);
            double b = parts.length == 2 ? Double.parseDouble(parts[1]) : 1;
            if (!(a > 0) || !(b > 0) || Double.isInfinite(a) || Double.isInfinite(b)) {
                throw new NumberFormatException();
            }
            return a / b;
        } catch (NumberFormatException e) {
            throw new InputException(flag + " '" + text + "': expected a ratio such as 2:1");
        }
    }

    /**
     * Three decades either way: a what-if beyond them is a typo (a 1,000x faster NVLink is faster than
     * any memory), and a rate or latency scaled further leaves the ranges links are checked against.
     */
    private static final double MAX_FACTOR = 1000;

    /** Parses {@code nvlink=0.5,network=2} into factors by link class. */
    public static Map<LinkClass, Double> parseScales(String flag, String text) {
        Map<LinkClass, Double> out = new EnumMap<>(LinkClass.class);
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String item : text.split(",")) {
            String[] kv = item.split("=");
            if (kv.length != 2) {
                throw new InputException(flag + " '" + item + "': expected CLASS=FACTOR, e.g. nvlink=0.5");
            }
            LinkClass c;
            try {
                c = LinkClass.valueOf(kv[0].trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new InputException(flag + " '" + kv[0].trim() + "': unknown link class; expected nvlink, pcie or network");
            }
            if (out.put(c, positiveFactor(flag, item, kv[1], "")) != null) {
                throw new InputException(flag + " '" + text + "': " + c.name().toLowerCase(Locale.ROOT) + " given twice; give each class once");
            }
        }
        return out;
    }

    private static double positiveFactor(String flag, String item, String text, String hint) {
        double f;
        try {
            f = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            f = Double.NaN;
        }
        if (!(f > 0) || Double.isInfinite(f)) {
            throw new InputException(flag + " '" + item + "': the factor must be a positive number" + hint);
        }
        if (f < 1 / MAX_FACTOR || f > MAX_FACTOR) {
            throw new InputException(flag + " '" + item + "': expected a factor from 0.001 to 1000" + hint);
        }
        return f;
    }
}
