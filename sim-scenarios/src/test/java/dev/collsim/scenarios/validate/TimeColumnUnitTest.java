package dev.collsim.scenarios.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A calibration CSV's time column may carry another unit in its name (time_ns, time_ms, time_s): the
 * times are converted to microseconds, where a file without time_us had read as no times at all and
 * left the measured column blank. None, two, or an unknown unit are refused (bad-input corpus).
 */
class TimeColumnUnitTest {
    @Test
    void everyUnitReadsAsTheSameMicroseconds() {
        for (String[] column : List.of(new String[] {"time_us", "46.5"}, new String[] {"time_ms", "0.0465"},
                new String[] {"time_s", "0.0000465"}, new String[] {"time_ns", "46500"})) {
            List<CalibrationRow> rows = CalibrationSet.read(new StringReader("dataset_id,op,dtype,size_bytes," + column[0]
                    + "\nX,all_reduce,float,1048576," + column[1] + "\n"), "t.csv");
            assertEquals(46.5, rows.get(0).timeMicros(), 1e-9, column[0]);
        }
    }
}
