package dev.collsim.core.units;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import org.junit.jupiter.api.Test;

class UnitsTest {
    @Test
    void sizesParseDecimalAndBinaryPrefixes() {
        assertEquals(4L << 20, DataSize.parse("4MiB").bytes());
        assertEquals(4_000_000L, DataSize.parse("4MB").bytes());
        assertEquals(1536L, DataSize.parse("1.5KiB").bytes());
        assertEquals(512, DataSize.parse(" 512 B ").bytes());
        assertEquals(3L << 30, DataSize.parse("3GiB").bytes());
    }

    @Test
    void ratesNormaliseBitsToBytesPerDirection() {
        assertEquals(50e9, Rate.parse("400Gb/s").bytesPerSecond(), 1e-3);
        assertEquals(450e9, Rate.parse("450GB/s").bytesPerSecond(), 1e-3);
        assertEquals(1024.0 * 1024 * 1024, Rate.parse("1GiB/s").bytesPerSecond(), 1e-3);
    }

    @Test
    void timesBecomeIntegerPicoseconds() {
        assertEquals(1_500_000L, TimeSpan.parse("1.5us").picos());
        assertEquals(1_500_000L, TimeSpan.parse("1.5µs").picos());
        assertEquals(250_000L, TimeSpan.parse("250ns").picos());
        assertEquals(2_000_000_000_000L, TimeSpan.parse("2s").picos());
        assertEquals(TimeSpan.parse("0.3us"), TimeSpan.parse("300ns"));
    }

    @Test
    void bareNumberSaysWhichSuffixToAdd() {
        InputException e = assertThrows(InputException.class, () -> Rate.parse("450"));
        assertTrue(e.getMessage().contains("no unit") && e.getMessage().contains("GB/s"), e.getMessage());
        InputException t = assertThrows(InputException.class, () -> TimeSpan.parse("5"));
        assertTrue(t.getMessage().contains("no unit") && t.getMessage().contains("ms"), t.getMessage());
    }

    /** A data size is the exception: as in nccl-tests a bare number counts bytes, and K, M, G are powers of 1024. */
    @Test
    void sizesTakeBytesNcclTestsSuffixesAndBothPrefixes() {
        assertEquals(4_194_304L, DataSize.parse("4194304").bytes());
        assertEquals(4_194_304L, DataSize.parse("4M").bytes());
        assertEquals(4_194_304L, DataSize.parse("4m").bytes());
        assertEquals(4_194_304L, DataSize.parse("4MiB").bytes());
        assertEquals(4_000_000L, DataSize.parse("4MB").bytes());
        assertEquals(8L << 30, DataSize.parse("8G").bytes());
        InputException e = assertThrows(InputException.class, () -> DataSize.parse("-4"));
        assertTrue(e.getMessage().contains("negative"), e.getMessage());
    }

    @Test
    void unknownUnitAndGarbageAreOneLineErrors() {
        InputException e = assertThrows(InputException.class, () -> Rate.parse("450GBps"));
        assertTrue(e.getMessage().contains("unknown rate unit 'GBps'"), e.getMessage());
        assertThrows(InputException.class, () -> TimeSpan.parse("fast"));
        assertThrows(InputException.class, () -> DataSize.parse("-1MiB"));
        assertThrows(InputException.class, () -> DataSize.parse("0.5B"));
        assertThrows(InputException.class, () -> Rate.parse("0GB/s"));
        assertThrows(InputException.class, () -> TimeSpan.parse(""));
        for (String bad : new String[] {"1X", "", "GB/s", "1e999GB/s"}) {
            InputException x = assertThrows(InputException.class, () -> Rate.parse(bad));
            assertTrue(!x.getMessage().contains("\n"), x.getMessage());
        }
    }

    @Test
    void picosForRoundsUp() {
        assertEquals(10_485_760L, Rate.gigabytesPerSecond(100).picosFor(1 << 20));
        assertEquals(1L, Rate.gigabytesPerSecond(1000).picosFor(0.5));
    }

    @Test
    void formattingIsReadable() {
        assertEquals("4MiB", DataSize.parse("4MiB").toString());
        assertEquals("1.5us", TimeSpan.parse("1.5us").toString());
        assertEquals("50GB/s", Rate.parse("400Gb/s").toString());
    }

    /** Found by fuzzing: an exponent beyond BigDecimal's range was a NumberFormatException; a rate above 1 PB/s overflows products. */
    @Test
    void outOfRangeNumbersAreInputErrors() {
        InputException huge = assertThrows(InputException.class, () -> Rate.parse("41e3091048576GB/s"));
        assertTrue(huge.getMessage().contains("out of range"), huge.getMessage());
        assertThrows(InputException.class, () -> TimeSpan.parse("1e3091048576us"));
        assertThrows(InputException.class, () -> DataSize.parse("1e3091048576MiB"));
        InputException absurd = assertThrows(InputException.class, () -> Rate.parse("1e299GB/s"));
        assertTrue(absurd.getMessage().contains("beyond any link"), absurd.getMessage());
    }
}
