package dev.collsim.scenarios.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a data set's set-up and its rows together say what to simulate. */
class ValidationSetupTest {
    private static DatasetSetup setup(Boolean gdr) {
        return new DatasetSetup("S", "hgx-h100", 1, 1, "roce", 1, "ring", gdr, null, null);
    }

    /** Rows that carry their own node count become one data set a count, labelled with it, each run on its nodes. */
    @Test
    void aDataSetOnSeveralNodeCountsIsScoredPerCount() {
        List<CalibrationRow> rows = List.of(new CalibrationRow("S", "all_reduce", "float", 64L << 20, 5000, 2, 2),
                new CalibrationRow("S", "all_reduce", "float", 64L << 20, 5000, 3, 4));
        Validation v = Validation.run(new ValidationSpec(rows, Map.of("S", setup(null))));
        assertEquals(List.of("S (2 nodes)", "S (4 nodes)"), v.points().stream().map(Validation.Point::dataset).toList());
        double two = v.points().get(0).simulated().timeMicros();
        double four = v.points().get(1).simulated().timeMicros();
        assertTrue(four > two, "a ring over 4 nodes takes longer than over 2: " + four + " vs " + two);
    }

    /**
     * A data set marked inconsistent on some node counts is still simulated and scored, those counts labelled so, after
     * every other series, with its evidence beside the table; its other counts score as before.
     */
    @Test
    void anInconsistentSeriesIsScoredApartWithItsEvidence() {
        List<CalibrationRow> rows = List.of(new CalibrationRow("S", "all_reduce", "float", 64L << 20, 5000, 2, 4),
                new CalibrationRow("S", "all_reduce", "float", 64L << 20, 5000, 3, 2),
                new CalibrationRow("T", "all_reduce", "float", 64L << 20, 5000, 3, 1));
        DatasetSetup marked = new DatasetSetup("S", "hgx-h100", 1, 1, "roce", 1, "ring", null, null, null, null, "4 nodes faster than 2",
                List.of(4));
        Validation v = Validation.run(new ValidationSpec(rows, new java.util.LinkedHashMap<>(Map.of("S", marked, "T", setup(null)))));
        assertEquals(List.of("S (2 nodes)", "T", "S (4 nodes, inconsistent)"), v.points().stream().map(Validation.Point::dataset).toList());
        assertEquals(List.of("S (4 nodes): 4 nodes faster than 2"), v.scoredApart());
        assertTrue(dev.collsim.scenarios.views.ValidationView.summary(v).footer().contains(
                "scored apart, inconsistent with another measurement of the same system: S (4 nodes): 4 nodes faster than 2"));
    }

    /**
     * The bundled calibration marks NT309's 4- and 8-node runs, whose times fall as nodes are added, and DraNet's two
     * B200 nodes, 5-11x slower than Google's own run on the same machine type, and only those.
     */
    @Test
    void theBundledSetsMarkedInconsistentAreNt309sFourAndEightNodesAndDraNets() {
        Map<String, DatasetSetup> setups = CalibrationSet.setups();
        List<String> marked = setups.values().stream().filter(d -> d.inconsistent() != null).map(DatasetSetup::id).toList();
        assertEquals(List.of("NT309_H100_GJ_SCALING", "DRANET_A4_B200_2N8_AG"), marked);
        assertTrue(setups.get("DRANET_A4_B200_2N8_AG").inconsistentOn(2));
        assertTrue(setups.get("DRANET_A4_B200_2N8_AG").inconsistent().contains("GCP_A4_B200_2N8_AG"), "names the run it contradicts");
        DatasetSetup nt309 = setups.get("NT309_H100_GJ_SCALING");
        assertTrue(nt309.inconsistentOn(4) && nt309.inconsistentOn(8) && !nt309.inconsistentOn(2));
    }

    /** {@code gdr: false} runs the data set with every network transfer through host memory, as the log's 'GDR 0' says. */
    @Test
    void gdrOffGoesThroughHostMemory() {
        List<CalibrationRow> rows = List.of(new CalibrationRow("S", "all_reduce", "float", 1L << 30, 5000, 2, 2));
        double direct = Validation.run(new ValidationSpec(rows, Map.of("S", setup(null)))).points().get(0).simulated().timeMicros();
        double staged = Validation.run(new ValidationSpec(rows, Map.of("S", setup(false)))).points().get(0).simulated().timeMicros();
        assertTrue(staged > direct, staged + " us through host memory vs " + direct + " with GPUDirect RDMA");
    }
}
