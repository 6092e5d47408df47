package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.validate.ServingValidation;
import dev.collsim.scenarios.validate.ServingValidation.Group;
import dev.collsim.scenarios.validate.ServingValidation.Outcome;
import java.util.List;
import java.util.Map;

/** {@code validate --serving}'s tables: the scores per metric, system, engine and mode, and every measured row. */
public final class ServingValidationView {
    private ServingValidationView() {}

    public static List<Table> tables(ServingValidation v, String source) {
        return List.of(summary(v, source), rows(v));
    }

    private static Table summary(ServingValidation v, String source) {
        Table t = new Table("serving runs simulated against measured runs", List.of(Column.text("metric", "metric", 13),
                Column.text("stat", "stat", 7), Column.text("system", "system", 16), Column.text("engine", "engine", 8),
                Column.text("mode", "mode", 7), Column.text("model", "model", 18), Column.number("rows", "rows", "", 6, 0),
                Column.number("skipped", "skipped", "", 8, 0), Column.number("geomean_abs_error_pct", "geomean |err|", "(%)", 14, 1),
                Column.number("bias_pct", "bias", "(%)", 8, 1), Column.text("worst_row", "worst row", 10),
                Column.number("worst_error_pct", "worst err", "(%)", 10, 1)), Map.of("command", "validate --serving", "source", source));
        t.note(source + ": " + v.runs() + " runs, " + v.simulatedRuns() + " simulated; " + v.outcomes().size() + " measured figures, "
                + v.simulated().size() + " simulated");
        t.note("error = simulated / measured - 1 per row; geomean |err| = exp(mean |ln(sim/meas)|) - 1; bias = exp(mean ln(sim/meas)) - 1"
                + " (negative: the simulated latency or throughput is below the measured one)");
        t.note("a group of several models is followed by a line per model; 'all' is every row of the metric");
        for (Group g : v.groups()) {
            Outcome worst = g.worst();
            boolean all = g.system() == null;
            t.row(g.metric(), g.stat(), all ? "all" : g.system(), all ? "" : g.engine(), all ? "" : g.mode(),
                    g.model() == null ? "all" : shortName(g.model()), g.rows().size(), g.skipped(), 100 * g.geomeanAbsError(), 100 * g.bias(),
                    worst == null ? "-" : worst.row().id(), worst == null ? Double.NaN : 100 * (worst.ratio() - 1));
        }
        return t;
    }

    private static Table rows(ServingValidation v) {
        Table t = new Table("every measured serving figure", List.of(Column.text("row", "row", 7), Column.text("model", "model", 18),
                Column.text("system", "system", 16), Column.text("engine", "engine", 8), Column.text("mode", "mode", 7),
                Column.text("deployment", "deployment", 30), Column.number("concurrency", "conc", "", 6, 0),
                Column.number("isl", "ISL", "", 6, 0), Column.number("osl", "OSL", "", 6, 0), Column.text("metric", "metric", 13),
                Column.text("stat", "stat", 7), Column.number("measured", "measured", "", 11, 2), Column.number("simulated", "simulated", "", 11, 2),
                Column.number("error_pct", "error", "(%)", 8, 1), Column.text("skipped", "skipped because", 20)),
                Map.of("command", "validate --serving"));
        t.note("simulated = collsim's request-level simulation of the run: a closed loop of conc requests of ISL and OSL tokens, "
                + ServingValidation.WARMUP_PER_USER + " x conc warm-up then " + ServingValidation.MEASURED_PER_USER
                + " x conc measured requests sent conc at once when the warm-up has ended (as aiconfigurator's AIPerf runs), seed 0; the scheduler"
                + " as aiconfigurator's generator deploys it (a step's tokens ISL + " + ServingValidation.BUDGET_ABOVE_ISL + ", and the batch in an"
                + " aggregated vLLM or TensorRT-LLM instance; SGLang's prompt chunks mixed into its decode steps); latencies in ms, output_tok_s in"
                + " tokens/s");
        for (Outcome o : v.outcomes()) {
            boolean ran = o.skipped() == null;
            t.row(o.row().id(), shortName(o.model()), o.system(), o.engine(), o.mode(), o.deployment(), o.row().run().load(),
                    o.row().run().isl(), o.row().run().osl(), o.row().metric(), o.row().stat(), o.measured(),
                    ran ? o.simulated() : Double.NaN, ran ? 100 * (o.ratio() - 1) : Double.NaN, ran ? "" : o.skipped());
        }
        return t;
    }

    private static String shortName(String model) {
        int paren = model.indexOf(" (");
        return paren > 0 ? model.substring(0, paren) : model;
    }
}
