package dev.collsim.scenarios.views;

import dev.collsim.core.collective.RunResult;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.Plan;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.scenarios.bench.BenchSpec;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/** {@code --links}: the links that limited the largest size, busiest first. */
public final class LinkTable {
    private static final int SHOWN = 12;
    private static final List<Column> COLUMNS = List.of(
            Column.text("from", "from", 12),
            Column.text("to", "to", 12),
            Column.text("class", "class", 16),
            Column.number("rate_GBps", "rate", "(GB/s)", 7, 1),
            Column.number("bytes", "bytes carried", "(B)", 14, 0),
            Column.number("busy_pct", "busy", "(%)", 6, 1));

    private LinkTable() {}

    public static Table of(BenchSpec spec) {
        Communicator comm = Bench.communicator(spec);
        List<Long> sizes = spec.sizes().sizes();
        long bytes = Bench.roundedSize(spec, comm.nRanks(), sizes.get(sizes.size() - 1));
        Plan plan = Bench.plan(spec, comm, bytes);
        RunResult r = comm.simulate(plan, null, false);
        Fabric f = comm.fabric();
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("command", "bench --links");
        meta.put("size_bytes", bytes);
        meta.put("algo", plan.algo().label());
        Table t = new Table("Busiest links", COLUMNS, meta);
        t.note(String.format(Locale.ROOT, "%s of %d bytes with %s/%s takes %.2f us; busy = bytes / (rate x that time)",
                spec.op().ncclName(), bytes, plan.algo().label(), plan.request().protocol().label(), r.durationMicros()));
        t.note("the links near 100 % limit the collective; links far below it are waiting on latency or on other links");
        double seconds = r.durationPicos() / 1e12;
        IntStream.range(0, r.linkBytes().length).boxed()
                .filter(l -> r.linkBytes()[l] > 0)
                .sorted(Comparator.comparingDouble((Integer l) -> -busy(f.link(l), r.linkBytes()[l], seconds)).thenComparingInt(l -> l))
                .limit(SHOWN)
                .forEach(l -> {
                    Link link = f.link(l);
                    t.row(f.device(link.from()).name(), f.device(link.to()).name(), link.linkClass(), link.rate().gigabytesPerSecond(),
                            r.linkBytes()[l], 100 * busy(link, r.linkBytes()[l], seconds));
                });
        return t;
    }

    private static double busy(Link link, long bytes, double seconds) {
        return bytes / (link.rate().bytesPerSecond() * seconds);
    }
}
