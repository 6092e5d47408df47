package dev.collsim.scenarios.views;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferKind;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclAlgo;
import dev.collsim.core.nccl.NcclTuner;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.explain.Explain.Run;
import java.util.Arrays;
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
        Integer[] order = IntStream.range(0, s.transferCount()).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingLong((Integer x) -> run.times().startedPicos(x)).thenComparingInt(x -> x));
        for (int x : order) {
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
     * The textbook alpha-beta time and the simulator's own terms. alpha is NCCL's per-step latency for
     * the algorithm and protocol on this link type; beta the GPU's link rate per direction.
     */
    static List<String> formula(Run run) {
        if (run.plan().algo() == AlgorithmId.ONE_RANK) {
            return List.of("", "one rank communicates nothing: NCCL launches no kernel and copies the input to the output"
                    + " (cudaMemcpyAsync, ncclLaunchOneRank)", String.format(Locale.ROOT, "  %-52s %10.2f us", "simulated: the copy",
                    run.result().durationMicros()));
        }
        Communicator comm = run.comm();
        Schedule s = run.result().schedule();
        var req = s.request();
        int n = req.nRanks();
        double bytes = req.bytes();
        double beta = comm.fabric().link(comm.fabric().outLinks(comm.placement().devices()[0])[0]).rate().bytesPerSecond() / 1e6;
        Protocol proto = req.protocol();
        AlgorithmId algo = run.plan().algo();
        NcclAlgo tunerAlgo = algo.nccl() == null ? NcclAlgo.RING : algo.nccl();
        double alpha = NcclTuner.hwLatencyMicros(comm.nccl().intraLink(), tunerAlgo, proto);
        AlgorithmId.AlphaBeta shape = algo.alphaBeta(req, comm);
        double steps = shape.steps();
        double perRank = shape.bytesPerRank();
        double textbook = steps * alpha + perRank / beta;
        boolean nvls = algo.inSwitch();
        double launch = nvls ? comm.book().nvls().launchLatency().micros() : NcclTuner.baseLatencyMicros(tunerAlgo, proto);
        double efficiency = nvls ? comm.book().nvls().efficiency() : proto.wireEfficiency();
        double channelCap = (nvls ? comm.book().nvls().channelRate() : comm.costs(algo, proto).channelRate())
                .bytesPerSecond() / 1e6;
        double effective = Math.min(req.channels() * channelCap, beta * efficiency);
        // NCCL's NVLS latency is the whole algorithm's, and the simulation pays it once, at launch.
        double stepLatency = nvls ? 0 : alpha;
        double model = launch + steps * stepLatency + perRank / effective;
        double simulated = run.result().durationMicros();
        String f = "  %-52s %10.2f us";
        return List.of(
                "",
                "alpha-beta, the textbook: " + shape.shape(),
                String.format(Locale.ROOT, "  alpha = %.2f us per step (NCCL's latency for %s/%s here), beta = %.1f GB/s per direction"
                        + " (the GPU's link), n = %d, S = %d B", alpha, tunerAlgo.label(), proto.label(), beta / 1e3, n, (long) bytes),
                String.format(Locale.ROOT, f, "textbook time", textbook),
                "the same sum with what the simulator knows:",
                String.format(Locale.ROOT, f, "+ kernel launch and set-up", launch),
                String.format(Locale.ROOT, f, String.format(Locale.ROOT, "+ %s steps x %.2f us", fmt(steps), stepLatency), steps * stepLatency),
                String.format(Locale.ROOT, f, String.format(Locale.ROOT, "+ bandwidth term at %.1f GB/s", effective / 1e3), perRank / effective),
                String.format(Locale.ROOT, "    (%d channel(s) x %.1f GB/s each; the link gives %.1f GB/s of data at %s's %.0f %% data per wire byte)",
                        req.channels(), channelCap / 1e3, beta * efficiency / 1e3, nvls ? "NVLS" : proto.label(), efficiency * 100),
                String.format(Locale.ROOT, f, "= sum", model),
                String.format(Locale.ROOT, f, "simulated, chunk by chunk", simulated),
                String.format(Locale.ROOT, "  the difference (%+.2f us) is the pipeline: chunks and slices let a rank forward the first part of", simulated - model),
                "  a block while the rest still arrives (saving), the fill and drain at its ends and each transfer's",
                "  send overhead (adding), and contention where flows share a link.");
    }

    private static String fmt(double steps) {
        return steps % 1 == 0 ? String.valueOf((long) steps) : String.valueOf(steps);
    }
}
