package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.validate.DecodeValidation.Outcome;
import dev.collsim.scenarios.validate.DecodeValidation;
import dev.collsim.scenarios.validate.LogError;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/** {@code validate --decode}'s tables: the error summaries, and a row per measured decode step and time to first token. */
public final class DecodeValidationView {
    private DecodeValidationView() {}

    /** The summary line and a row per measured run: decode steps, then times to first token (each where the file has any). */
    public static List<Table> tables(DecodeValidation v, String source) {
        List<Table> out = new ArrayList<>();
        List<Outcome> decode = v.outcomes().stream().filter(o -> !o.ttft()).toList();
        List<Outcome> ttft = v.outcomes().stream().filter(Outcome::ttft).toList();
        if (!decode.isEmpty()) {
            out.add(summary("decode steps simulated against measured runs", source, decode));
            Table rows = new Table("every measured decode run", List.of(Column.text("row", "row", 5), Column.text("model", "model", 24),
                    Column.text("system", "system", 12), Column.text("engine", "engine", 9), Column.text("layout", "layout", 14),
                    Column.number("batch", "batch", "", 6, 0), Column.number("context", "context", "", 8, 0),
                    Column.number("measured_ms", "measured", "(ms)", 10, 2), Column.number("simulated_ms", "simulated", "(ms)", 10, 2),
                    Column.number("prefill_ms", "of it prefills", "(ms)", 15, 2), Column.number("error_pct", "error", "(%)", 8, 1)),
                    Map.of("command", "validate --decode"));
            rows.note("simulated = the decode step + the arriving requests' prefills a serving step carries (batch / OSL prompts of ISL tokens)");
            for (Outcome o : decode) {
                if (o.skipped() == null) {
                    rows.row(o.id(), shortName(o.model()), o.system(), o.engine(), o.layout(), o.batch(), o.context(), o.measuredMs(),
                            o.simulatedMs(), o.prefillMs(), 100 * (o.ratio() - 1));
                } else {
                    rows.note("skipped row " + o.id() + " (" + shortName(o.model()) + "): " + o.skipped());
                }
            }
            out.add(rows);
        }
        if (!ttft.isEmpty()) {
            String label = v.ttftSource() == null ? source : v.ttftSource();
            Table summary = summary("times to first token simulated against measured runs", label, ttft);
            SortedSet<String> trusts = new TreeSet<>();
            ttft.forEach(o -> trusts.add(o.trust() == null ? "" : o.trust()));
            if (trusts.size() > 1) {
                // In-process static runs (A) and client-side serving benchmarks (B) measure different things: each apart.
                for (String t : trusts) {
                    addSummaryRow(summary, label + (t.isEmpty() ? ", no trust" : ", trust " + t),
                            ttft.stream().filter(o -> t.equals(o.trust() == null ? "" : o.trust())).toList());
                }
                summary.note("trust A: in-process static runs (one prefill); B: client-side serving benchmarks (HTTP, tokenizer and server in the TTFT)");
            }
            out.add(summary);
            Table rows = new Table("every measured time to first token", List.of(Column.text("row", "row", 5),
                    Column.text("model", "model", 24), Column.text("system", "system", 12), Column.text("engine", "engine", 9),
                    Column.text("layout", "layout", 14), Column.number("prompts", "prompts", "", 8, 0), Column.number("isl", "ISL", "", 6, 0),
                    Column.number("measured_ms", "measured", "(ms)", 10, 2), Column.number("simulated_ms", "simulated", "(ms)", 10, 2),
                    Column.number("server_ms", "of it server", "(ms)", 13, 1), Column.number("error_pct", "error", "(%)", 8, 1)),
                    Map.of("command", "validate --decode"));
            rows.note("simulated = the prefill of the row's prompts in one forward on its layout, launched without CUDA graphs, with the"
                    + " engine's host step (collsim prefill); a TTFT measured at a client (trust B) also holds the server's time per request"
                    + " beyond the forwards (the engine's request overhead, --request-overhead); a prefill rate (prefill_tok_s,"
                    + " prefill_tok_s_per_gpu) is measured as the time of the forward it implies: every replica's prompts over the rate");
            for (Outcome o : ttft) {
                if (o.skipped() == null) {
                    rows.row(o.id(), shortName(o.model()), o.system(), o.engine(), o.layout(), o.batch(), o.context(), o.measuredMs(),
                            o.simulatedMs(), o.simulatedMs() - o.prefillMs(), 100 * (o.ratio() - 1));
                } else {
                    rows.note("skipped row " + o.id() + " (" + shortName(o.model()) + "): " + o.skipped());
                }
            }
            out.add(rows);
        }
        return out;
    }

    private static Table summary(String title, String source, List<Outcome> outcomes) {
        Table summary = new Table(title, List.of(Column.text("source", "source", 24),
                Column.number("rows", "rows", "", 6, 0), Column.number("skipped", "skipped", "", 8, 0),
                Column.number("geomean_abs_error_pct", "geomean |err|", "(%)", 14, 1), Column.number("bias_pct", "bias", "(%)", 8, 1),
                Column.text("worst_row", "worst row", 10), Column.number("worst_error_pct", "worst err", "(%)", 10, 1)),
                Map.of("command", "validate --decode"));
        summary.note("error = simulated / measured - 1 per row; geomean |err| = exp(mean |ln(sim/meas)|) - 1; bias = exp(mean ln(sim/meas)) - 1");
        addSummaryRow(summary, source, outcomes);
        return summary;
    }

    private static void addSummaryRow(Table summary, String source, List<Outcome> outcomes) {
        List<Outcome> sim = outcomes.stream().filter(o -> o.skipped() == null).toList();
        List<Double> ratios = sim.stream().map(Outcome::ratio).toList();
        Outcome worst = sim.stream().max(Comparator.comparingDouble(o -> Math.abs(Math.log(o.ratio())))).orElse(null);
        summary.row(source, sim.size(), outcomes.size() - sim.size(), 100 * LogError.geomeanAbs(ratios), 100 * LogError.bias(ratios),
                worst == null ? "-" : worst.id(), worst == null ? Double.NaN : 100 * (worst.ratio() - 1));
    }

    private static String shortName(String model) {
        int paren = model.indexOf(" (");
        return paren > 0 ? model.substring(0, paren) : model;
    }
}
