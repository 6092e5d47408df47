package dev.collsim.core.units;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DurationTest {
    @Test
    void microsecondsBecomeMillisecondsByTheDivisionTheModelsDid() {
        // Bit for bit: a decode step's 12548.010518 us is the 12.548010518 ms its JSON has always printed.
        double micros = 12548.010518;
        assertEquals(micros / 1000, Duration.ofMicros(micros).ms(), 0);
        assertEquals(Double.doubleToLongBits(micros / 1000), Double.doubleToLongBits(Duration.ofMicros(micros).ms()));
    }

    @Test
    void aSpanOfPicosecondsConverts() {
        assertEquals(1.5, Duration.of(TimeSpan.parse("1.5ms")).ms(), 1e-15);
        assertEquals(2.5e-6, Duration.of(new TimeSpan(2_500)).ms(), 1e-21);
    }

    @Test
    void arithmeticAndOrder() {
        Duration a = Duration.ofMillis(3);
        Duration b = Duration.ofSeconds(0.002);
        assertEquals(5, a.plus(b).ms(), 0);
        assertEquals(1, a.minus(b).ms(), 0);
        assertEquals(1.5, a.over(b), 0);
        assertEquals(6000, a.times(2).micros(), 0);
        assertTrue(a.isLongerThan(b) && a.compareTo(b) > 0);
        assertEquals("3.000 ms", a.toString());
    }

    @Test
    void notANumberIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Duration.ofMillis(Double.NaN));
    }
}
