package dev.collsim.scenarios.load.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.stochastic.Mrg32k3aStreams;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import umontreal.ssj.rng.RandomStream;

/**
 * Each length distribution draws the law it names: sample mean (and spread) within four standard
 * errors over 100,000 draws, the standard error worked out from the law itself.
 */
class LengthsTest {
    private static final int N = 100_000;

    @TempDir
    Path dir;

    private static RandomStream stream() {
        return Mrg32k3aStreams.fromSeed(41, 1)[0];
    }

    private static int[] draws(Lengths l, int max) {
        RandomStream s = stream();
        int[] out = new int[N];
        for (int i = 0; i < N; i++) {
            out[i] = l.draw(s, max);
        }
        return out;
    }

    @Test
    void theSyntaxes() {
        assertEquals(new Lengths.Fixed(1024), Lengths.parse("--isl", "1024"));
        assertEquals(new Lengths.Fixed(4096), Lengths.parse("--isl", "4k"));
        assertEquals(new Lengths.Uniform(512, 2048), Lengths.parse("--isl", "uniform:512-2k"));
        assertEquals(new Lengths.Fixed(7), Lengths.parse("--isl", "uniform:7-7"));
        assertEquals(new Lengths.Normal(1000, 200), Lengths.parse("--isl", "normal:1000,200"));
        assertEquals(new Lengths.Lognormal(1000, 500.5), Lengths.parse("--osl", "LogNormal: 1000, 500.5"));
    }

    @Test
    void aFixedLengthIsEveryDrawClampedToTheMax() {
        assertTrue(Arrays.stream(draws(new Lengths.Fixed(1024), 8192)).allMatch(v -> v == 1024));
        assertEquals(4096, new Lengths.Fixed(5000).draw(stream(), 4096));
    }

    @Test
    void uniformDrawsEveryWholeNumberOfTheRangeAsLikely() {
        int lo = 100;
        int hi = 1100;
        Stats s = Stats.ofInts(draws(new Lengths.Uniform(lo, hi), 8192));
        double width = hi - lo + 1.0;
        double sigma = Math.sqrt((width * width - 1) / 12); // a discrete uniform's
        assertEquals((lo + hi) / 2.0, s.mean, s.meanTolerance(sigma));
        int[] d = draws(new Lengths.Uniform(lo, hi), 8192);
        assertEquals(lo, Arrays.stream(d).min().getAsInt());
        assertEquals(hi, Arrays.stream(d).max().getAsInt());
    }

    @Test
    void normalHasItsMeanAndSd() {
        // Rounding adds 1/12 to the variance and clamping at 1 cuts a tail 5 sd away: both far below the tolerances.
        Stats s = Stats.ofInts(draws(new Lengths.Normal(1000, 200), 8192));
        assertEquals(1000, s.mean, s.meanTolerance(200));
        assertEquals(200, s.sd, Stats.Z * 200 / Math.sqrt(2.0 * N)); // a normal sample sd's standard error: sigma / sqrt(2n)
    }

    @Test
    void lognormalHasTheMeanAndSdOfTheLengthsNotOfTheLog() {
        double mean = 1000;
        double sd = 500;
        int[] d = draws(new Lengths.Lognormal(mean, sd), 1 << 24);
        Stats s = Stats.ofInts(d);
        assertEquals(mean, s.mean, s.meanTolerance(sd));
        double sigma2 = Math.log(1 + (sd / mean) * (sd / mean));
        // The sample variance's standard error is sd^2 sqrt((kurtosis - 1) / n), the lognormal's kurtosis from sigma^2.
        double kurtosis = Math.exp(4 * sigma2) + 2 * Math.exp(3 * sigma2) + 3 * Math.exp(2 * sigma2) - 3;
        assertEquals(sd, s.sd, Stats.Z * sd * Math.sqrt((kurtosis - 1) / N) / 2);
        // Its median is exp(mu) = mean / sqrt(1 + cv^2); the sample median's standard error is 1 / (2 f(median) sqrt(n)).
        double median = mean / Math.sqrt(1 + (sd / mean) * (sd / mean));
        double density = 1 / (median * Math.sqrt(sigma2) * Math.sqrt(2 * Math.PI));
        Arrays.sort(d);
        assertEquals(median, (d[N / 2 - 1] + d[N / 2]) / 2.0, Stats.Z / (2 * density * Math.sqrt(N)) + 0.5);
    }

    @Test
    void aFileIsDrawnUniformlyAmongItsLengths() throws IOException {
        Path f = dir.resolve("lengths.csv");
        Files.writeString(f, "\uFEFFisl\r\n100\r\n200\r\n\r\n600\r\n", StandardCharsets.UTF_8);
        Lengths l = Lengths.parse("--isl", "file:" + f);
        assertEquals(300, l.mean(), 1e-12);
        int[] d = draws(l, 8192);
        assertTrue(Arrays.stream(d).allMatch(v -> v == 100 || v == 200 || v == 600));
        Stats s = Stats.ofInts(d);
        assertEquals(300, s.mean, s.meanTolerance(Math.sqrt((200.0 * 200 + 100 * 100 + 300 * 300) / 3)));
    }

    @Test
    void everyDrawTakesOneNumberOfItsStream() {
        for (Lengths l : new Lengths[] {new Lengths.Uniform(1, 9), new Lengths.Normal(100, 10), new Lengths.Lognormal(100, 10),
            new Lengths.Lognormal(100, 0), new Lengths.Empirical("f", new int[] {1, 2})}) {
            RandomStream a = stream();
            RandomStream b = stream();
            for (int i = 0; i < 10; i++) {
                l.draw(a, 1000);
                b.nextDouble();
            }
            assertEquals(b.nextDouble(), a.nextDouble(), l.describe());
        }
    }

    /** vLLM's RandomDataset: [floor(L(1-R)), ceil(L(1+R))], the low end at least 1. */
    @Test
    void theRandomRangeRatioIsVllms() {
        assertEquals(new Lengths.Uniform(900, 1100), new Lengths.Fixed(1000).widened("--isl", 0.1));
        assertEquals(new Lengths.Uniform(500, 1502), new Lengths.Fixed(1001).widened("--isl", 0.5));
        assertEquals(new Lengths.Uniform(1, 2), new Lengths.Fixed(1).widened("--osl", 0.5));
        assertEquals(new Lengths.Fixed(1000), new Lengths.Fixed(1000).widened("--isl", 0));
        InputException e = assertThrows(InputException.class, () -> new Lengths.Normal(1000, 10).widened("--isl", 0.1));
        assertTrue(e.getMessage().contains("--isl normal (mean 1000, sd 10) is already a distribution"), e.getMessage());
    }

    private static String refused(String text) {
        String m = assertThrows(InputException.class, () -> Lengths.parse("--isl", text)).getMessage();
        assertFalse(m.contains("\n"), m);
        return m;
    }

    @Test
    void badValuesAreRefusedNamingTheFlag() {
        assertTrue(refused("poisson:3").startsWith("--isl 'poisson:3': unknown distribution 'poisson'; expected a token count"));
        assertTrue(refused("0").startsWith("--isl '0': '0' is not a token count"));
        assertTrue(refused("-5").startsWith("--isl '-5'"));
        assertTrue(refused("1.5k").startsWith("--isl '1.5k'"));
        assertTrue(refused("uniform:9-3").contains("LO 9 is above HI 3"));
        assertTrue(refused("uniform:9").contains("expected uniform:LO-HI"));
        assertTrue(refused("normal:abc,1").contains("expected normal:MEAN,SD"));
        assertTrue(refused("normal:100").contains("expected normal:MEAN,SD"));
        assertTrue(refused("lognormal:0,1").contains("expected lognormal:MEAN,SD"));
        assertTrue(refused("normal:100,-1").contains("expected normal:MEAN,SD"));
        assertTrue(refused("file:" + dir.resolve("missing.txt")).contains("missing.txt: cannot read (no such file)"));
    }

    @Test
    void aBadLengthsFileNamesItsLine() throws IOException {
        Path f = dir.resolve("l.txt");
        Files.writeString(f, "100\n200\n12.5\n");
        assertTrue(refused("file:" + f).startsWith(f + ": line 3: length '12.5': expected a whole number of tokens"));
        Files.writeString(f, "100\n0\n");
        assertTrue(refused("file:" + f).startsWith(f + ": line 2: length '0'"));
        Files.writeString(f, "100\n200,300\n");
        assertTrue(refused("file:" + f).startsWith(f + ": line 2: 2 columns; expected one length per line"));
        Files.writeString(f, "\n\n");
        assertTrue(refused("file:" + f).startsWith(f + ": line 1: no lengths"));
    }
}
