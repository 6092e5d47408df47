package dev.collsim.scenarios.views;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferKind;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclAlgo;
import dev.collsim.core.nccl.NcclTuner;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.explain.Explain.Run;
import dev.collsim.scenarios.explain.Textbook;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The teaching view of {@code explain}: one collective's schedule transfer by transfer, then the
 * textbook alpha-beta time beside the simulated one and where they part.
 */
public final class ExplainView {
    private static final List<Column> COLUMNS = List.of(
            Column.number("step", "step", "", 4, 0),
            Column.number("channel", "ch", "", 3, 0),
            Column.text("src", "src", 4),
            Column.text("dst", "dst", 4),
            Column.text("range", "bytes of the buffer", 21),
            Column.number("bytes", "bytes", "", 9, 0),
            Column.number("start_us", "start", "(us)", 8, 2),
            Column.number("end_us", "end", "(us)", 8, 2),
            Column.text("action", "action", 17),
            Column.text("carries", "carries", 12));

    private ExplainView() {}

    public static Table table(Run run) {
        Schedule s = run.result().schedule();
        CollectiveOp op = s.request().op();
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("command", "explain");
        meta.put("op", op.ncclName());
        meta.put("algo", run.plan().algo().label());
        meta.put("proto", s.request().protocol().label());
        meta.put("ranks", s.request().nRanks());
        meta.put("bytes", s.request().bytes());
        meta.put("simulated_us", run.result().durationMicros());
        Table t = new Table("collsim explain " + op.ncclName(), COLUMNS, meta);
        t.note(String.format(Locale.ROOT, "%s %s on %d ranks of %s, %d bytes, protocol %s, %d channel(s)",
                op.ncclName(), run.plan().algo().label(), s.request().nRanks(), run.comm().name(), s.request().bytes(),
                s.request().protocol().label(), s.request().channels()));
        if (run.plan().algo() == AlgorithmId.TREE) {
            int nodes = run.comm().nNodes();
            t.note(nodes == 1 ? "on one node the tree is a chain: NCCL's tree is a double binary tree over nodes with a chain through each"
                    + " node's GPUs, and with one node only the chain is left (each piece is reduced up the chain and sent back down it)"
                    : "across " + nodes + " nodes: a double binary tree over the nodes (two trees, each carrying half the pieces, so every"
                    + " node sends and receives at full rate) and a chain through the GPUs inside each node");
        }
        t.note("each line is one transfer: who sends which bytes to whom, when, and which ranks' inputs it carries (r0+r2 = their sum)");
        t.note("");
        for (int x : order(run)) {
            int piece = s.piece(x);
            long lo = s.pieceOffset(piece);
            String dst = s.dst(x) == Schedule.ALL ? "all" : "r" + s.dst(x);
            String src = s.src(x) == Schedule.ALL || s.kind(x) == TransferKind.SWITCH_ALLREDUCE ? "all" : "r" + s.src(x);
            t.row(s.step(x), s.channel(x), src, dst, "[" + lo + ", " + (lo + s.pieceLength(piece)) + ")", s.bytes(x),
                    run.times().startedPicos(x) / 1e6, run.times().receivedPicos(x) / 1e6, action(s, x),
                    contributions(run.tracker().carried(x)));
        }
        formula(run).forEach(t::footnote);
        return t;
    }

    /** The transfers in the order the table lists them: by start, then by number. */
    static int[] order(Run run) {
        return IntStream.range(0, run.result().schedule().transferCount()).boxed()
                .sorted(Comparator.comparingLong((Integer x) -> run.times().startedPicos(x)).thenComparingInt(x -> x))
                .mapToInt(Integer::intValue).toArray();
    }

    private static String action(Schedule s, int x) {
        return switch (s.kind(x)) {
            case P2P -> s.reduces(x) ? "reduce into dst" : "copy to dst";
            case SWITCH_ALLREDUCE -> "switch reduce+mcast";
            case SWITCH_REDUCE -> "switch reduce";
            case SWITCH_MULTICAST -> "switch multicast";
            case NETWORK_ALLREDUCE -> "SHARP reduce+bcast";
            case LOCAL_COPY -> "local copy";
        };
    }

    private static String contributions(BitSet b) {
        if (b == null || b.isEmpty()) {
            return "-";
        }
        return b.stream().mapToObj(r -> "r" + r).collect(Collectors.joining("+"));
    }

    /**
     * The textbook alpha-beta time, the algorithm's own ({@link Textbook}): NCCL's latency per step inside a
     * node and across nodes, the bytes on a GPU's link and through a node's NICs, and which of the two
     * bounds it; then the same sum with the simulator's launch, channel and protocol costs.
     */
    static List<String> formula(Run run) {
        if (run.plan().algo() == AlgorithmId.ONE_RANK) {
            return List.of("", "one rank communicates nothing: NCCL launches no kernel and copies the input to the output"
                    + " (cudaMemcpyAsync, ncclLaunchOneRank)", String.format(Locale.ROOT, "  %-52s %10.2f us", "simulated: the copy",
                    run.result().durationMicros()));
        }
        Communicator comm = run.comm();
        var req = run.result().schedule().request();
        Textbook tb = run.textbook();
        AlgorithmId.AlphaBeta ab = tb.shape();
        Protocol proto = req.protocol();
        AlgorithmId algo = run.plan().algo();
        int nodes = comm.nNodes();
        String f = "  %-52s %10.2f us";
        List<String> out = new ArrayList<>();
        out.add("");
        out.add("alpha-beta, the textbook for " + algo.label() + (nodes > 1 ? " across " + nodes + " nodes" : "") + ": " + ab.shape());
        out.add("  " + ab.how());
        out.add(String.format(Locale.ROOT, "  n = %d ranks, p = %d a node, N = %d node%s, S = %d B", req.nRanks(), req.nRanks() / nodes,
                nodes, nodes == 1 ? "" : "s", req.bytes()));
        if (ab.intraSteps() > 0) {
            out.add(String.format(Locale.ROOT, "  alpha     = %6.2f us a step inside a node (NCCL's %s latency for %s/%s) x %s",
                    tb.alpha(), comm.nccl().intraLink() == LinkType.NVLINK ? "NVLink" : comm.nccl().intraLink().name(), tb.algo().label(), proto.label(), steps(ab.intraSteps())));
        }
        if (ab.netSteps() > 0) {
            out.add(String.format(Locale.ROOT, "  alpha_net = %6.2f us a step across nodes (NCCL's NET latency for %s/%s) x %s",
                    tb.alphaNet(), tb.algo().label(), proto.label(), steps(ab.netSteps())));
        }
        if (tb.gpuMicros() > 0) {
            out.add(String.format(Locale.ROOT, "  beta      = %6.1f GB/s per direction: a GPU's link in its node (%s)%s", tb.beta() / 1e3,
                    tb.gpuLink(), ab.gpuEfficiency() == 1 ? "" : String.format(Locale.ROOT, ", x %.2f (NCCL's NVLS efficiency)",
                            ab.gpuEfficiency())));
        }
        if (tb.nodeMicros() > 0) {
            out.add(String.format(Locale.ROOT, "  beta_node = %6.1f GB/s per direction: the node's %d NIC%s of %.1f GB/s (%s), one a rail%s",
                    tb.betaNode() / 1e3, tb.nics(), tb.nics() == 1 ? "" : "s", tb.nicRate() / 1e3, tb.nicLink(), ab.nicEfficiency() == 1
                            ? "" : String.format(Locale.ROOT, ", x %.2f (SHARP's efficiency)", ab.nicEfficiency())));
        }
        out.add(String.format(f, "latency", tb.latencyMicros()));
        if (tb.gpuMicros() > 0) {
            out.add(String.format(f, String.format(Locale.ROOT, "a GPU's link carries %.1f MB%s", ab.gpuBytes() / 1e6,
                    tb.nodeMicros() > 0 && !tb.nicBound() ? " (bounds it)" : ""), tb.gpuMicros()));
        }
        if (tb.nodeMicros() > 0) {
            out.add(String.format(f, String.format(Locale.ROOT, "a node's NICs carry %.1f MB%s", ab.nodeBytes() / 1e6,
                    tb.gpuMicros() > 0 && tb.nicBound() ? " (bounds it)" : ""), tb.nodeMicros()));
        }
        out.add(String.format(f, "textbook time: latency + the slower link", tb.micros()));
        boolean nvls = algo.inSwitch();
        NcclAlgo tunerAlgo = tb.algo();
        double launch = nvls ? comm.book().nvls().launchLatency().micros()
                : NcclTuner.baseLatencyMicros(comm.nccl().arch(), tunerAlgo, proto);
        // NCCL's NVLS latency is the whole algorithm's, and the simulation pays it once, at launch.
        double latency = tb.latencyMicros() - (nvls ? ab.intraSteps() * tb.alpha() : 0);
        double bytes = tb.nicBound() ? ab.nodeBytes() : ab.gpuBytes();
        double link = tb.nicBound() ? tb.betaNode() * ab.nicEfficiency() : tb.beta() * ab.gpuEfficiency();
        double efficiency = nvls ? 1 : proto.wireEfficiency();
        double channelCap = (nvls ? comm.book().nvls().channelRate() : comm.costs(algo, proto).channelRate()).bytesPerSecond() / 1e6;
        double effective = Math.min(req.channels() * channelCap, link * efficiency);
        double model = launch + latency + bytes / effective;
        double simulated = run.result().durationMicros();
        out.add("the same sum with what the simulator knows:");
        out.add(String.format(Locale.ROOT, f, "+ kernel launch and set-up", launch));
        out.add(String.format(Locale.ROOT, f, "+ the steps' latency" + (nvls ? " beyond the launch" : ""), latency));
        out.add(String.format(Locale.ROOT, f, String.format(Locale.ROOT, "+ bandwidth term at %.1f GB/s", effective / 1e3), bytes / effective));
        out.add(String.format(Locale.ROOT, "    (%d channel(s) x %.1f GB/s each; the %s gives %.1f GB/s of data%s)", req.channels(), channelCap / 1e3,
                tb.nicBound() ? "NICs" : "link", link * efficiency / 1e3, nvls ? "" : String.format(Locale.ROOT, " at %s's %.0f %% data per wire byte",
                        proto.label(), efficiency * 100)));
        out.add(String.format(Locale.ROOT, f, "= sum", model));
        out.add(String.format(Locale.ROOT, f, "simulated, chunk by chunk", simulated));
        out.add(String.format(Locale.ROOT, "  the difference (%+.2f us) is the pipeline: chunks and slices let a rank forward the first part of", simulated - model));
        out.add("  a block while the rest still arrives (saving), the fill and drain at its ends and each transfer's");
        out.add("  send overhead (adding), and contention where flows share a link.");
        return out;
    }

    private static String steps(double steps) {
        return (steps % 1 == 0 ? String.valueOf((long) steps) : String.valueOf(steps)) + (steps == 1 ? " step" : " steps");
    }
}
