package dev.collsim.scenarios.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MeasuredTest {
    @Test
    void readsNcclTestsTable() {
        TreeMap<Long, Double> m = Measured.read(Path.of("src/test/resources/logs/all_reduce_perf.txt"), CollectiveOp.ALL_REDUCE);
        assertEquals(4, m.size());
        assertEquals(46.52, m.get(1048576L), 0);
        assertEquals(368.67, m.get(67108864L), 0);
    }

    /** Older nccl-tests print no root; alltoall prints "none" as its reduction. */
    @Test
    void readsOtherLayouts() {
        assertEquals(12.5, Measured.parseLog(List.of("     1024   256   float   sum   12.50   0.08   0.08   0   12.40  0.08  0.08  0"),
                "old.txt").get(1024L), 0);
        assertEquals(30.1, Measured.parseLog(List.of("  65536  2048  float  none  -1  30.10  2.18  1.90  0  29.00  2.26  1.98  N/A"),
                "a2a.txt").get(65536L), 0);
    }

    /** nccl-tests -b 0 prints a 0-byte line that times the launch alone: skipped, not an error. */
    @Test
    void zeroByteLinesAreSkipped() {
        var m = Measured.parseLog(List.of("     0   0   float   sum   -1   0.50   0.00   0.00   0   0.40   0.00   0.00   0",
                "  1024  256  float  sum  -1  12.50  0.08  0.08  0  12.40  0.08  0.08  0"), "zero.txt");
        assertEquals(List.of(1024L), List.copyOf(m.keySet()));
    }

    @Test
    void badInputNamesFileAndLine() {
        InputException e = assertThrows(InputException.class,
                () -> Measured.parseLog(List.of("# header", "  1024  256  float  sum  -1  fast  0  0  0"), "bad.txt"));
        assertTrue(e.getMessage().startsWith("bad.txt:2:"), e.getMessage());
        InputException none = assertThrows(InputException.class,
                () -> Measured.read(Path.of("src/test/resources/logs/empty.txt"), CollectiveOp.ALL_GATHER));
        assertTrue(none.getMessage().contains("no measured all_gather line"), none.getMessage());
    }
}
