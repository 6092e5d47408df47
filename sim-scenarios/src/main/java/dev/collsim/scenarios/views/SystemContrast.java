package dev.collsim.scenarios.views;

import dev.collsim.scenarios.decode.KernelCosts;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.systems.NvlinkDomain;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.XgmiMesh;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Why one system gives more tokens/s per GPU than another, in the terms the model prices a step by: a GPU's HBM (what
 * fits, and how fast the weights and the cache stream), its tensor rate at the step's weight format, its scale-up
 * fabric (what a tensor-parallel collective crosses) and whose measured kernel tables price its kernels. Each factor
 * is put on the side it favours, as a ratio.
 */
public final class SystemContrast {
    private SystemContrast() {}

    /** Ratios within this of 1 favour neither side. */
    private static final double EVEN = 0.03;

    /**
     * The line, or empty where either is not a preset (a topology file's GPU and fabric are its own).
     *
     * @param bits        the step's math width (16 BF16, 8 FP8, 4 FP4)
     * @param winnerBatch the winner's decode batch per instance, or 0 if not known
     * @param loserBatch  the other's
     */
    public static Optional<String> why(String winner, String loser, int bits, int winnerBatch, int loserBatch, ServingEngine engine) {
        Optional<SystemPreset> wp = SystemPreset.find(winner);
        Optional<SystemPreset> lp = SystemPreset.find(loser);
        if (wp.isEmpty() || lp.isEmpty()) {
            return Optional.empty();
        }
        SystemPreset w = wp.get();
        SystemPreset l = lp.get();
        GpuModel.Roofline a = w.gpu().roofline();
        GpuModel.Roofline b = l.gpu().roofline();
        List<String> forWinner = new ArrayList<>();
        List<String> forLoser = new ArrayList<>();
        String batches = winnerBatch > 0 && loserBatch > 0 && winnerBatch != loserBatch
                ? String.format(Locale.ROOT, "; batch %d against %d", winnerBatch, loserBatch) : "";
        factor(forWinner, forLoser, "HBM capacity", a.hbmGB(), b.hbmGB(), String.format(Locale.ROOT, "%.0f against %.0f GB%s", a.hbmGB(),
                b.hbmGB(), batches));
        factor(forWinner, forLoser, "HBM bandwidth", a.hbmTBps(), b.hbmTBps(), String.format(Locale.ROOT, "%.1f against %.1f TB/s",
                a.hbmTBps(), b.hbmTBps()));
        String format = bits >= 16 ? "BF16" : bits == 8 ? "FP8" : "FP4";
        factor(forWinner, forLoser, "dense " + format + " rate", a.tflops(bits), b.tflops(bits), String.format(Locale.ROOT,
                "%.0f against %.0f TFLOPS", a.tflops(bits), b.tflops(bits)));
        factor(forWinner, forLoser, "scale-up fabric", scaleUpGBps(w), scaleUpGBps(l), fabric(w) + " against " + fabric(l));
        StringBuilder out = new StringBuilder("why, per GPU as the model prices a step:");
        out.append(forWinner.isEmpty() ? " nothing in " + winner + "'s favour by itself" : " in " + winner + "'s favour "
                + String.join(", ", forWinner));
        if (!forLoser.isEmpty()) {
            out.append("; in ").append(loser).append("'s favour ").append(String.join(", ", forLoser));
        }
        String kw = KernelCosts.tableSource(w.gpu().arch(), engine);
        String kl = KernelCosts.tableSource(l.gpu().arch(), engine);
        out.append(kw.equals(kl) ? "; both GPUs' kernels priced from " + kw : "; kernels priced from " + kw + " against " + kl);
        return Optional.of(out.toString());
    }

    private static void factor(List<String> forWinner, List<String> forLoser, String name, double winner, double loser, String detail) {
        if (!(winner > 0 && loser > 0) || Math.abs(winner / loser - 1) <= EVEN) {
            return;
        }
        String line = String.format(Locale.ROOT, "%s %.2fx (%s)", name, Math.max(winner, loser) / Math.min(winner, loser), detail);
        (winner > loser ? forWinner : forLoser).add(line);
    }

    /** What one GPU can send to the rest of its node at once, GB/s. */
    private static double scaleUpGBps(SystemPreset p) {
        GpuModel gpu = p.gpu();
        if (p.family() instanceof XgmiMesh) {
            return gpu.xgmi().links() * gpu.xgmi().usableRate().gigabytesPerSecond();
        }
        if (p.family() instanceof NvlinkDomain) {
            return gpu.nvlinks() * gpu.nvlink().effectiveRate().gigabytesPerSecond();
        }
        return p.pcie().effectiveRate().gigabytesPerSecond();
    }

    private static String fabric(SystemPreset p) {
        GpuModel gpu = p.gpu();
        if (p.family() instanceof XgmiMesh) {
            return String.format(Locale.ROOT, "an xGMI mesh, %d links of %.1f GB/s, one a peer", gpu.xgmi().links(),
                    gpu.xgmi().usableRate().gigabytesPerSecond());
        }
        if (p.family() instanceof NvlinkDomain) {
            return String.format(Locale.ROOT, "%s x%d through NVSwitch, %.0f GB/s", gpu.nvlink().label(), gpu.nvlinks(), scaleUpGBps(p));
        }
        return String.format(Locale.ROOT, "%s, %.1f GB/s", p.pcie().label(), scaleUpGBps(p));
    }
}
