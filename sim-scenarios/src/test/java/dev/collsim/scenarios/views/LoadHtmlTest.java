package dev.collsim.scenarios.views;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.load.Distribution;
import dev.collsim.scenarios.load.LoadOutcome;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadHtmlTest {
    @Test
    void thinningKeepsTheEndsAndSpacesTheRest() {
        assertArrayEquals(new int[] {0, 1, 2, 3}, LoadHtml.thin(4, 500));
        assertArrayEquals(new int[] {0, 3, 5, 8}, LoadHtml.thin(9, 4));
        int[] kept = LoadHtml.thin(100_000, 500);
        assertEquals(500, kept.length);
        assertEquals(0, kept[0]);
        assertEquals(99_999, kept[499]);
        for (int k = 1; k < kept.length; k++) {
            assertTrue(kept[k] > kept[k - 1]);
        }
    }

    /**
     * 5,000 TTFTs draw as at most 500 points of their CDF, from the least (1 / 5000 at or below it) to the
     * greatest (all), after the staircase's foot at 0.
     */
    @Test
    void aCdfIsThinned() {
        LoadOutcome o = LoadSamples.aggregated(5000);
        JsonNode data = LoadHtml.cdf("TTFT", o.summary().ttft()).get("series").get(0).get("data");
        assertEquals(501, data.size());
        assertEquals("[10.0,0]", data.get(0).toString());
        assertEquals(10, data.get(1).get(0).asDouble(), 1e-9);
        assertEquals(1 / 5000.0, data.get(1).get(1).asDouble(), 1e-12);
        assertEquals(10 + 4999 / 100.0, data.get(500).get(0).asDouble(), 1e-9);
        assertEquals(1, data.get(500).get(1).asDouble(), 1e-12);
        JsonNode few = LoadHtml.cdf("TPOT", Distribution.weighted(new double[] {2, 1}, new long[] {1, 3})).get("series").get(0).get("data");
        assertEquals("[[1.0,0],[1.0,0.75],[2.0,1.0]]", few.toString());
    }

    @Test
    void theSeriesAreOverTimeInSeconds() {
        List<LoadOutcome.Sample> samples = LoadSamples.disaggregated().series();
        JsonNode chart = LoadHtml.overTime("KV-cache blocks held", "%", samples, List.of("KV-cache use"), List.of(x -> 100 * x.kvUse()));
        assertEquals("[[0.0,10.0],[0.05,25.0],[0.1,50.0],[0.15,37.5]]", chart.get("series").get(0).get("data").toString());
        assertEquals(LoadHtml.SERIES_POINTS, LoadHtml.overTime("queued", "requests", LoadSamples.aggregated(3000).series(), List.of("queued"),
                List.of(LoadOutcome.Sample::queued)).get("series").get(0).get("data").size());
    }

    /** The page holds five charts (two CDFs, three series) and the summary. */
    @Test
    void thePageHasItsChartsAndTable() {
        HtmlReport report = new HtmlReport("load");
        LoadHtml.add(report, LoadSamples.disaggregated());
        assertEquals(5, report.chartCount());
        String html = report.render();
        assertTrue(html.contains("<td class=\"label\">Mean TTFT (ms):</td><td>120.00</td>"), "summary table");
    }
}
