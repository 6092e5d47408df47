package dev.collsim.scenarios.views;

import dev.collsim.core.nccl.NcclVersion;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.bench.BenchSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Puts bench rows into the report table, with nccl-tests' column names. */
public final class BenchTable {
    /** The CSV header is a contract: {@code size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,algo,proto,channels}. */
    public static final List<Column> COLUMNS = List.of(
            Column.number("size_bytes", "size", "(B)", 12, 0),
            Column.number("count", "count", "(elements)", 12, 0),
            Column.text("type", "type", 8),
            Column.text("redop", "redop", 6),
            Column.number("root", "root", "", 6, 0),
            Column.number("time_us", "time", "(us)", 9, 2),
            Column.number("algbw_GBps", "algbw", "(GB/s)", 7, 2),
            Column.number("busbw_GBps", "busbw", "(GB/s)", 7, 2),
            Column.text("algo", "algo", 5),
            Column.text("proto", "proto", 6),
            Column.number("channels", "channels", "", 8, 0));

    private BenchTable() {}

    public static Table of(BenchSpec spec, String systemDescription, List<BenchRow> rows) {
        return of(spec, systemDescription, rows, null);
    }

    /**
     * With measured times (size to us; null: none), two more columns: the measured time where the
     * measurement has the size, and the simulation's error, (simulated - measured) / measured.
     */
    public static Table of(BenchSpec spec, String systemDescription, List<BenchRow> rows, Map<Long, Double> measured) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("command", "bench");
        meta.put("op", spec.op().ncclName());
        meta.put("system", spec.system());
        meta.put("nodes", spec.nodes());
        meta.put("ranks", spec.nodes() * spec.gpusPerNode());
        meta.put("gpus_per_thread", spec.gpusPerThread());
        meta.put("nccl", spec.nccl().release());
        String whatIfs = spec.whatIf().describe();
        if (!whatIfs.isEmpty()) {
            meta.put("what_ifs", whatIfs);
        }
        List<Column> columns = COLUMNS;
        if (measured != null) {
            columns = new ArrayList<>(COLUMNS);
            columns.add(Column.number("measured_us", "measured", "(us)", 9, 2));
            columns.add(Column.number("error_pct", "error", "(%)", 7, 1));
        }
        Table t = new Table("collsim bench " + spec.op().ncclName(), columns, meta);
        t.note("collsim bench " + spec.op().ncclName() + ": simulated nccl-tests " + spec.op().ncclName() + "_perf");
        t.note("system " + spec.system() + " (" + systemDescription + "), " + spec.nodes() + " node(s) x " + spec.gpusPerNode()
                + " GPUs" + (spec.nodes() > 1 && spec.network() != null ? " over " + spec.network() : "") + ", -g "
                + spec.gpusPerThread() + " (" + spec.gpusPerThread() + " GPU(s) per host thread)");
        if (!whatIfs.isEmpty()) {
            t.note("what-ifs: " + whatIfs);
        }
        if (spec.nccl() != NcclVersion.NEWEST) {
            t.note("NCCL " + spec.nccl().release() + " chooses algorithms, protocols and channels (the newest modelled is "
                    + NcclVersion.NEWEST.release() + ")");
        }
        List<String> idle = spec.nodes() == 1 ? spec.whatIf().networkOnly() : List.of();
        if (!idle.isEmpty()) {
            t.note("warning: " + String.join(", ", idle) + (idle.size() == 1 ? " acts" : " act") + " on the network between nodes;"
                    + " one node has none, so " + (idle.size() == 1 ? "it changes" : "they change") + " nothing here (add --nodes)");
        }
        t.note("time = steady-state time per iteration; algbw = size/time, busbw as nccl-tests defines it (GB = 1e9 B)");
        t.note("");
        double busSum = 0;
        if (measured != null) {
            t.note("measured = the given measurement's out-of-place time at that size (blank where it has none); error = (time - measured) / measured");
        }
        for (BenchRow r : rows) {
            if (measured == null) {
                t.row(r.sizeBytes(), r.count(), r.type(), r.redop(), r.root(), r.timeMicros(), r.algBwGBps(), r.busBwGBps(),
                        r.algo(), r.proto(), r.channels());
            } else {
                Double m = measured.get(r.sizeBytes());
                t.row(r.sizeBytes(), r.count(), r.type(), r.redop(), r.root(), r.timeMicros(), r.algBwGBps(), r.busBwGBps(),
                        r.algo(), r.proto(), r.channels(), m == null ? Double.NaN : m,
                        m == null ? Double.NaN : 100 * (r.timeMicros() - m) / m);
            }
            busSum += r.busBwGBps();
        }
        if (!rows.isEmpty()) {
            t.footnote(String.format(Locale.ROOT, "Avg bus bandwidth    : %.3f", busSum / rows.size()));
        }
        return t;
    }
}
