package dev.collsim.scenarios.load.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The flags together: closed and open loops, traces, prefix sharing, the context check and every refused combination. */
class WorkloadBuilderTest {
    private static final int CONTEXT = 8192;

    private static WorkloadBuilder open(double rate, String isl, String osl) {
        return new WorkloadBuilder().rate(rate).isl(Lengths.parse("--isl", isl)).osl(Lengths.parse("--osl", osl));
    }

    private static double[] times(Workload w) {
        return w.requests().stream().mapToDouble(RequestSpec::arrivalMs).toArray();
    }

    private static int[] isls(Workload w) {
        return w.requests().stream().mapToInt(RequestSpec::isl).toArray();
    }

    private static int[] osls(Workload w) {
        return w.requests().stream().mapToInt(RequestSpec::osl).toArray();
    }

    /** Every field of every request, doubles by their bits: equal strings are byte-identical workloads. */
    private static String bytes(Workload w) {
        StringBuilder s = new StringBuilder(w.describe());
        for (RequestSpec r : w.requests()) {
            s.append('\n').append(r.id()).append(' ').append(Double.doubleToRawLongBits(r.arrivalMs())).append(' ').append(r.isl())
                    .append(' ').append(r.osl()).append(' ').append(r.blockTokens());
            for (long h : r.blockHashes()) {
                s.append(' ').append(h);
            }
        }
        return s.toString();
    }

    @Test
    void aClosedLoop() {
        Workload w = new WorkloadBuilder().concurrency(8).isl(new Lengths.Fixed(1024)).osl(new Lengths.Fixed(128)).build(CONTEXT);
        assertTrue(w.closedLoop());
        assertEquals(8, w.concurrency());
        assertEquals(WorkloadBuilder.DEFAULT_REQUESTS, w.requests().size());
        assertTrue(w.requests().stream().allMatch(r -> r.arrivalMs() == 0 && r.isl() == 1024 && r.osl() == 128 && r.blockHashes().length == 0));
        assertEquals(List.of(0, 1, 2), w.requests().subList(0, 3).stream().map(RequestSpec::id).toList());
        assertEquals("closed loop of 8, 1000 requests, ISL 1024, OSL 128", w.describe());
    }

    @Test
    void anOpenLoop() {
        Workload w = open(10, "normal:1000,100", "uniform:100-200").requests(500).warmup(50).seed(3).build(CONTEXT);
        assertFalse(w.closedLoop());
        assertEquals(500, w.requests().size());
        assertEquals(50, w.warmup());
        assertEquals(50_000, w.requests().get(499).arrivalMs(), 1e-6);
        assertEquals("Poisson arrivals at 10 req/s, 500 requests, ISL normal (mean 1000, sd 100), OSL uniform 100-200, the first 50 a warm-up,"
                + " seed 3", w.describe());
    }

    @Test
    void theSameSeedIsByteIdenticalAndAnotherDiffers() {
        Supplier<WorkloadBuilder> b = () -> open(5, "lognormal:1000,400", "normal:200,50").burstiness(0.5).prefixShare(0.25);
        assertEquals(bytes(b.get().seed(9).build(CONTEXT)), bytes(b.get().seed(9).build(CONTEXT)));
        Workload other = b.get().seed(10).build(CONTEXT);
        Workload one = b.get().seed(9).build(CONTEXT);
        assertFalse(Arrays.equals(times(one), times(other)));
        assertFalse(Arrays.equals(isls(one), isls(other)));
        assertFalse(Arrays.equals(osls(one), osls(other)));
    }

    /** Arrivals, prompt lengths and output lengths each have their own stream: changing one leaves the others' numbers. */
    @Test
    void theStreamsAreIndependent() {
        Workload base = open(5, "normal:1000,100", "normal:200,50").seed(1).build(CONTEXT);
        Workload otherOsl = open(5, "normal:1000,100", "lognormal:300,200").seed(1).build(CONTEXT);
        assertArrayEquals(times(base), times(otherOsl));
        assertArrayEquals(isls(base), isls(otherOsl));
        assertFalse(Arrays.equals(osls(base), osls(otherOsl)));

        Workload otherIsl = open(5, "uniform:1-100", "normal:200,50").seed(1).build(CONTEXT);
        assertArrayEquals(times(base), times(otherIsl));
        assertArrayEquals(osls(base), osls(otherIsl));

        Workload burstier = open(5, "normal:1000,100", "normal:200,50").burstiness(0.3).seed(1).build(CONTEXT);
        assertArrayEquals(isls(base), isls(burstier));
        assertArrayEquals(osls(base), osls(burstier));
        assertFalse(Arrays.equals(times(base), times(burstier)));

        Workload closed = new WorkloadBuilder().concurrency(4).isl(Lengths.parse("--isl", "normal:1000,100"))
                .osl(Lengths.parse("--osl", "normal:200,50")).seed(1).build(CONTEXT);
        assertArrayEquals(isls(base), isls(closed));
        assertArrayEquals(osls(base), osls(closed));
    }

    /**
     * Both lengths widened with vLLM's own arithmetic, its float rounding included: 100 x (1 + 0.1) is
     * 110.00000000000001 in doubles, so vLLM's math.ceil gives 111, and so does this.
     */
    @Test
    void theRandomRangeRatioWidensBothLengths() {
        Workload w = open(5, "1000", "100").randomRangeRatio(0.1).build(CONTEXT);
        assertTrue(w.requests().stream().allMatch(r -> r.isl() >= 900 && r.isl() <= 1100 && r.osl() >= 90 && r.osl() <= 111));
        assertEquals(900, Arrays.stream(isls(w)).min().getAsInt());
        assertEquals(111, Arrays.stream(osls(w)).max().getAsInt());
        assertTrue(w.describe().contains("ISL uniform 900-1100, OSL uniform 90-111"), w.describe());
    }

    /**
     * --prefix-share 0.5 of 1,024 tokens: 512 shared tokens, 32 blocks of 16 that every request has alike,
     * then blocks of its own; of prompts of different lengths, the shorter shared prefix is common to both.
     */
    @Test
    void aSharedPrefixIsTheSameLeadingBlocks() {
        Workload w = new WorkloadBuilder().concurrency(2).requests(3).isl(new Lengths.Fixed(1024)).osl(new Lengths.Fixed(8)).prefixShare(0.5)
                .build(CONTEXT);
        RequestSpec a = w.requests().get(0);
        RequestSpec b = w.requests().get(1);
        assertEquals(16, a.blockTokens());
        assertEquals(64, a.blockHashes().length);
        for (int k = 0; k < 64; k++) {
            assertEquals(k < 32, a.blockHashes()[k] == b.blockHashes()[k], "block " + k);
        }
        assertTrue(w.describe().endsWith("the first 50 % of each prompt shared"), w.describe());

        Workload varied = open(5, "uniform:100-3000", "8").prefixShare(0.3).requests(50).build(CONTEXT);
        for (RequestSpec r : varied.requests()) {
            RequestSpec first = varied.requests().get(0);
            int common = Math.min((int) Math.floor(0.3 * r.isl()), (int) Math.floor(0.3 * first.isl())) / 16;
            assertEquals((r.isl() + 15) / 16, r.blockHashes().length);
            for (int k = 0; k < Math.min(r.blockHashes().length, first.blockHashes().length); k++) {
                assertEquals(k < common || r == first, r.blockHashes()[k] == first.blockHashes()[k], "request " + r.id() + " block " + k);
            }
        }
    }

    /** A trace's lengths, times and block ids; the ids chained so that one hash stands for its whole prefix. */
    @Test
    void aMooncakeTraceAtItsTimes() {
        TraceFile t = TraceFile.parse(TraceFileTest.MOONCAKE, "conv.jsonl");
        Workload w = new WorkloadBuilder().trace(t).build(CONTEXT);
        assertFalse(w.closedLoop());
        assertEquals(3, w.requests().size());
        assertArrayEquals(new double[] {0, 3053, 3053}, times(w));
        RequestSpec a = w.requests().get(0);
        RequestSpec b = w.requests().get(1);
        assertEquals(512, a.blockTokens());
        assertEquals(3, a.blockHashes().length);
        assertEquals(a.blockHashes()[0], b.blockHashes()[0]);
        assertNotEquals(a.blockHashes()[1], b.blockHashes()[1]);
        assertEquals(0, w.requests().get(2).blockHashes().length);
        assertEquals("Mooncake trace conv.jsonl (3 requests): every request, at its timestamps", w.describe());

        // Id 47 after a prefix other than [46] is not the block 47 after [46].
        TraceFile odd = TraceFile.parse("""
                {"timestamp": 0, "input_length": 1024, "output_length": 1, "hash_ids": [46, 47]}
                {"timestamp": 1, "input_length": 1024, "output_length": 1, "hash_ids": [9, 47]}
                """, "odd.jsonl");
        Workload o = new WorkloadBuilder().trace(odd).build(CONTEXT);
        assertNotEquals(o.requests().get(0).blockHashes()[1], o.requests().get(1).blockHashes()[1]);
    }

    @Test
    void aTraceInAClosedLoopKeepsItsLengthsAndBlocks() {
        TraceFile t = TraceFile.parse(TraceFileTest.MOONCAKE, "conv.jsonl");
        Workload w = new WorkloadBuilder().trace(t).concurrency(2).requests(2).build(CONTEXT);
        assertTrue(w.closedLoop());
        assertArrayEquals(new double[2], times(w));
        assertArrayEquals(new int[] {1100, 600}, isls(w));
        assertEquals(3, w.requests().get(0).blockHashes().length);
        assertEquals("Mooncake trace conv.jsonl (3 requests): its first 2, its lengths in a closed loop of 2", w.describe());
    }

    @Test
    void anAzureTraceWithASharedPrefix() {
        TraceFile t = TraceFile.parse(TraceFileTest.AZURE, "code.csv");
        Workload w = new WorkloadBuilder().trace(t).prefixShare(0.1).build(CONTEXT);
        assertEquals(16, w.requests().get(0).blockTokens());
        assertEquals((4808 + 15) / 16, w.requests().get(0).blockHashes().length);
        assertEquals(w.requests().get(0).blockHashes()[5], w.requests().get(1).blockHashes()[5]);
        assertArrayEquals(new int[] {10, 8, 27}, osls(w));
    }

    private static String refused(Supplier<Workload> build) {
        String m = assertThrows(InputException.class, build::get).getMessage();
        assertFalse(m.contains("\n"), m);
        return m;
    }

    private static void refusedAs(Supplier<Workload> build, String expected) {
        String m = refused(build);
        assertTrue(m.startsWith(expected), m);
    }

    @Test
    void aRequestLongerThanTheContextIsNamed() {
        refusedAs(() -> open(1, "8000", "500").build(CONTEXT), "request 0: ISL 8000 + OSL 500 = 8500 tokens, more than the model's context of 8192"
                + " (--isl 8000, --osl 500)");
        refusedAs(() -> new WorkloadBuilder().trace(TraceFile.parse(TraceFileTest.MOONCAKE, "conv.jsonl")).build(1000),
                "conv.jsonl: line 1: input_length 1100 + output_length 52 = 1152 tokens, more than the model's context of 1000");
        refusedAs(() -> new WorkloadBuilder().trace(TraceFile.parse(TraceFileTest.AZURE, "code.csv")).build(4000),
                "code.csv: line 2: ContextTokens 4808 + GeneratedTokens 10 = 4818 tokens, more than the model's context of 4000");
    }

    @Test
    void badFlagValues() {
        refusedAs(() -> new WorkloadBuilder().rate(0.0).build(CONTEXT), "--rate 0.0: expected requests per second above 0 and at most 1,000,000");
        refusedAs(() -> new WorkloadBuilder().rate(-2.0).build(CONTEXT), "--rate -2.0");
        refusedAs(() -> new WorkloadBuilder().rate(2e6).build(CONTEXT), "--rate 2000000.0");
        refusedAs(() -> new WorkloadBuilder().rate(Double.NaN).build(CONTEXT), "--rate NaN");
        refusedAs(() -> new WorkloadBuilder().concurrency(0).build(CONTEXT), "--concurrency 0: expected requests in flight from 1");
        refusedAs(() -> new WorkloadBuilder().burstiness(0.0).build(CONTEXT), "--burstiness 0.0: expected a shape above 0");
        refusedAs(() -> new WorkloadBuilder().requests(0).build(CONTEXT), "--requests 0: expected 1 to 10000000");
        refusedAs(() -> new WorkloadBuilder().warmup(-1).build(CONTEXT), "--warmup -1");
        refusedAs(() -> new WorkloadBuilder().randomRangeRatio(1.0).build(CONTEXT), "--random-range-ratio 1.0: expected 0 or more and below 1");
        refusedAs(() -> new WorkloadBuilder().prefixShare(1.0).build(CONTEXT), "--prefix-share 1.0");
        refusedAs(() -> new WorkloadBuilder().prefixShare(-0.1).build(CONTEXT), "--prefix-share -0.1");
    }

    @Test
    void badCombinations() {
        TraceFile mooncake = TraceFile.parse(TraceFileTest.MOONCAKE, "conv.jsonl");
        refusedAs(() -> new WorkloadBuilder().isl(new Lengths.Fixed(1)).osl(new Lengths.Fixed(1)).build(CONTEXT),
                "give --concurrency N (a closed loop of N requests in flight) or --rate R");
        refusedAs(() -> open(1, "10", "10").concurrency(3).build(CONTEXT), "--concurrency and --rate:");
        refusedAs(() -> new WorkloadBuilder().concurrency(3).burstiness(0.5).isl(new Lengths.Fixed(1)).osl(new Lengths.Fixed(1)).build(CONTEXT),
                "--burstiness shapes the gaps of --rate's open loop");
        refusedAs(() -> new WorkloadBuilder().concurrency(3).osl(new Lengths.Fixed(1)).build(CONTEXT), "missing --isl");
        refusedAs(() -> new WorkloadBuilder().concurrency(3).isl(new Lengths.Fixed(1)).build(CONTEXT), "missing --osl");
        refusedAs(() -> open(1, "10", "10").warmup(1000).build(CONTEXT), "--warmup 1000: expected fewer than the 1000 requests (the default)");
        refusedAs(() -> open(1, "10", "10").requests(5).warmup(5).build(CONTEXT), "--warmup 5: expected fewer than the 5 requests (--requests)");
        refusedAs(() -> open(1, "normal:10,1", "10").randomRangeRatio(0.2).build(CONTEXT), "--random-range-ratio widens a fixed length");
        refusedAs(() -> new WorkloadBuilder().trace(mooncake).rate(2.0).build(CONTEXT),
                "--rate with --trace: the trace gives its requests' arrival times; leave out --rate, or give --concurrency N");
        refusedAs(() -> new WorkloadBuilder().trace(mooncake).concurrency(2).burstiness(2.0).build(CONTEXT), "--burstiness with --trace");
        refusedAs(() -> new WorkloadBuilder().trace(mooncake).isl(new Lengths.Fixed(5)).build(CONTEXT),
                "--isl with --trace: the trace gives its requests' lengths; leave out --isl");
        refusedAs(() -> new WorkloadBuilder().trace(mooncake).osl(new Lengths.Fixed(5)).build(CONTEXT), "--osl with --trace");
        refusedAs(() -> new WorkloadBuilder().trace(mooncake).randomRangeRatio(0.5).build(CONTEXT), "--random-range-ratio with --trace");
        refusedAs(() -> new WorkloadBuilder().trace(mooncake).prefixShare(0.5).build(CONTEXT),
                "--prefix-share with --trace conv.jsonl: its hash_ids already say which blocks requests share");
        refusedAs(() -> new WorkloadBuilder().trace(mooncake).requests(4).build(CONTEXT), "--requests 4: conv.jsonl has 3 requests");
    }
}
