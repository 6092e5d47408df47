package dev.collsim.scenarios.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a data set's set-up and its rows together say what to simulate. */
class ValidationSetupTest {
    private static DatasetSetup setup(Boolean gdr) {
        return new DatasetSetup("S", "hgx-h100", 1, 1, "roce", 1, "ring", gdr, null);
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

    /** {@code gdr: false} runs the data set with every network transfer through host memory, as the log's 'GDR 0' says. */
    @Test
    void gdrOffGoesThroughHostMemory() {
        List<CalibrationRow> rows = List.of(new CalibrationRow("S", "all_reduce", "float", 1L << 30, 5000, 2, 2));
        double direct = Validation.run(new ValidationSpec(rows, Map.of("S", setup(null)))).points().get(0).simulated().timeMicros();
        double staged = Validation.run(new ValidationSpec(rows, Map.of("S", setup(false)))).points().get(0).simulated().timeMicros();
        assertTrue(staged > direct, staged + " us through host memory vs " + direct + " with GPUDirect RDMA");
    }
}
