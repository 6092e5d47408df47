package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.load.Distribution;
import dev.collsim.scenarios.load.LoadOutcome;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A load run in the HTML report: the CDFs of TTFT and TPOT, the deployment's batch, queue, KV cache and
 * preemptions over time, and the summary as vLLM prints it. Curves are thinned to evenly spaced points
 * (by rank for a CDF, by time for a series), so that a run of 100,000 requests stays a small page.
 */
public final class LoadHtml {
    /** Points a CDF keeps at most. */
    static final int CDF_POINTS = 500;
    /** Points a time series keeps at most. */
    static final int SERIES_POINTS = 1000;

    private LoadHtml() {}

    public static void add(HtmlReport report, LoadOutcome o) {
        add(report, o, LoadView.defaultPercentiles());
    }

    public static void add(HtmlReport report, LoadOutcome o, double[] percentiles) {
        LoadOutcome.Setup setup = o.setup();
        LoadOutcome.Summary s = o.summary();
        report.heading(String.format(Locale.ROOT, "%s on %s: %s under load", setup.model(), setup.system(), setup.deployment()));
        report.text(String.format(Locale.ROOT, "%s (%s); %s. %d requests in %.2f s: %.1f output tokens/s, %.1f per GPU, %.1f per user;"
                        + " TTFT mean %.2f ms, p99 %.2f ms; TPOT mean %.2f ms, p99 %.2f ms", setup.engine(), setup.scheduler(), setup.workload(),
                s.completed(), s.durationS(), s.outputThroughput(), s.outputThroughputPerGpu(), s.tokensPerSPerUser(), s.ttft().mean(),
                s.ttft().percentile(99), s.tpot().mean(), s.tpot().percentile(99)));
        cdf(report, "TTFT", s.ttft());
        cdf(report, "TPOT (excl. 1st token)", s.tpot());
        List<LoadOutcome.Sample> series = o.series();
        if (series.isEmpty()) {
            report.text("no samples of the deployment's state over time");
        } else {
            report.chart(overTime("Sequences running and requests queued", "requests", series,
                    List.of("running (in the batch)", "queued (waiting)"), List.of(LoadOutcome.Sample::running, LoadOutcome.Sample::queued)), 320);
            report.chart(overTime("KV-cache blocks held", "% of the blocks", series, List.of("KV-cache use"), List.of(x -> 100 * x.kvUse())), 280);
            report.chart(overTime("Preemptions so far", "preemptions", series, List.of("preemptions"),
                    List.of(LoadOutcome.Sample::preemptions)), 280);
        }
        report.table(LoadView.table(o, percentiles));
    }

    private static void cdf(HtmlReport report, String name, Distribution d) {
        if (d.count() == 0) {
            report.text(name + ": no values (no measured request has one)");
        } else {
            report.chart(cdf(name, d), 320);
        }
    }

    /** The distribution's CDF: at most {@link #CDF_POINTS} of its points, after a first at 0. */
    static ObjectNode cdf(String name, Distribution d) {
        double[][] cdf = d.cdf();
        ObjectNode o = chart("CDF of " + name + " over the measured requests", "ms", "fraction at or below");
        // A staircase, as an empirical CDF is, rising from 0 at the least value.
        ArrayNode data = o.putArray("series").addObject().put("name", name).put("type", "line").put("step", "end").put("showSymbol", false)
                .putArray("data");
        data.addArray().add(cdf[0][0]).add(0);
        for (int i : thin(cdf[0].length, CDF_POINTS)) {
            data.addArray().add(cdf[0][i]).add(cdf[1][i]);
        }
        o.withObject("/yAxis").put("max", 1);
        return o;
    }

    /** One line per value of the samples over time, at most {@link #SERIES_POINTS} samples of each. */
    static ObjectNode overTime(String title, String unit, List<LoadOutcome.Sample> samples, List<String> names,
                                       List<ToDoubleFunction<LoadOutcome.Sample>> values) {
        ObjectNode o = chart(title, "time (s)", unit);
        o.putObject("legend").put("top", 28);
        ArrayNode series = o.putArray("series");
        int[] kept = thin(samples.size(), SERIES_POINTS);
        for (int k = 0; k < names.size(); k++) {
            ArrayNode data = series.addObject().put("name", names.get(k)).put("type", "line").put("showSymbol", false).putArray("data");
            for (int i : kept) {
                LoadOutcome.Sample x = samples.get(i);
                data.addArray().add(x.timeMs() / 1000).add(values.get(k).applyAsDouble(x));
            }
        }
        return o;
    }

    /** A line chart on two value axes, titled. */
    private static ObjectNode chart(String title, String x, String y) {
        return Charts.xy(title, x, y, "axis", false);
    }

    /**
     * The indices of at most {@code max} points out of {@code n}, evenly spaced and always the first and the
     * last: all of them where there are no more than {@code max}.
     */
    static int[] thin(int n, int max) {
        int m = Math.min(n, max);
        int[] kept = new int[m];
        for (int k = 0; k < m; k++) {
            kept[k] = m == n ? k : (int) Math.round((double) k * (n - 1) / (m - 1));
        }
        return kept;
    }
}
