package dev.collsim.scenarios.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import org.junit.jupiter.api.Test;

class SloTest {
    @Test
    void aBareTimeIsTheMeanAndPNTimeAPercentile() {
        assertEquals(new Slo(0, 2000), Slo.parse("--ttft-slo", "2s"));
        assertEquals(new Slo(0, 2000), Slo.parse("--ttft-slo", "mean:2s"));
        assertEquals(new Slo(99, 2000), Slo.parse("--ttft-slo", "p99:2s"));
        assertEquals(new Slo(99.9, 100), Slo.parse("--ttft-slo", "P99.9:100ms"));
        assertEquals("mean", Slo.mean(50).stat());
        assertEquals("p90", Slo.parse("--itl-slo", "p90:50ms").stat());
        assertEquals("p99.9", Slo.parse("--itl-slo", "p99.9:50ms").stat());
    }

    @Test
    void aPercentileOutsideZeroToHundredOrAMissingTimeIsRefusedByFlag() {
        for (String bad : new String[] {"p101:2s", "p0:2s", "p100:2s", "px:2s", "q99:2s", "p99:", "p99:-1s", "0s"}) {
            InputException e = assertThrows(InputException.class, () -> Slo.parse("--ttft-slo", bad), bad);
            assertTrue(e.getMessage().startsWith("--ttft-slo"), e.getMessage());
        }
    }
}
