package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.replications.Replications;
import dev.collsim.scenarios.replications.Summary;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Replications of a stochastic run: a row per summarised quantity, or the JSON with every summary. */
public final class ReplicationsView {
    private ReplicationsView() {}

    public static Table table(Replications.Result r) {
        Table t = new Table("replications of " + r.what(), List.of(Column.text("quantity", "quantity", 26),
                Column.number("mean", "mean", "", 12, 4), Column.number("p50", "P50", "", 12, 4),
                Column.number("p99", "P99", "", 12, 4), Column.number("ci95", "95% CI +/-", "", 12, 4),
                Column.number("min", "min", "", 12, 4), Column.number("max", "max", "", 12, 4)),
                Map.of("command", "replications", "what", r.what()));
        t.note(String.format(Locale.ROOT, "%s: %d replications, seed %d; launch jitter cv %.3g, step jitter cv %.3g, straggler %s",
                r.what(), r.replications(), r.seed(), r.launchJitter(), r.stepJitter(),
                r.straggler() > 1 ? r.straggler() + "x on " + (r.stragglerGpu() >= 0 ? "GPU " + r.stragglerGpu() : "a GPU drawn per replication")
                        : "none")
                + (r.outage() == null ? "" : "; outage " + r.outage()));
        r.quantities().forEach((name, s) -> t.row(name, s.mean(), s.p50(), s.p99(), s.ci95HalfWidth(), s.min(), s.max()));
        return t;
    }

    public static ObjectNode json(Replications.Result r) {
        ObjectNode j = Json.object();
        j.put("what", r.what());
        j.put("replications", r.replications());
        j.put("seed", r.seed());
        j.put("launch_jitter", r.launchJitter());
        j.put("step_jitter", r.stepJitter());
        j.put("straggler", r.straggler());
        j.put("straggler_gpu", r.stragglerGpu());
        j.put("outage", r.outage());
        ObjectNode q = j.putObject("quantities");
        r.quantities().forEach((name, s) -> q.set(name, summary(s)));
        return j;
    }

    private static ObjectNode summary(Summary s) {
        ObjectNode o = Json.object();
        o.put("n", s.n());
        o.put("mean", s.mean());
        o.put("p50", s.p50());
        o.put("p99", s.p99());
        o.put("ci95_half_width", s.ci95HalfWidth());
        o.put("min", s.min());
        o.put("max", s.max());
        return o;
    }
}
