package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.load.workload.Workload;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import org.junit.jupiter.api.Test;

/** The workload flags as a command line gives them (no command mixes them in yet). */
class LoadWorkloadOptionsTest {
    @Command(name = "load")
    static final class Load {
        @Mixin
        LoadWorkloadOptions workload;
    }

    private static Workload build(String... args) {
        Load load = new Load();
        new CommandLine(load).parseArgs(args);
        return load.workload.build(8192);
    }

    @Test
    void theFlagsReachTheWorkload() {
        Workload w = build("--concurrency", "4", "--isl", "1k", "--osl", "uniform:10-20", "--requests", "50", "--warmup", "5", "--seed", "7");
        assertEquals(4, w.concurrency());
        assertEquals(50, w.requests().size());
        assertEquals(5, w.warmup());
        assertEquals(1024, w.requests().get(0).isl());
        assertEquals("closed loop of 4, 50 requests, ISL 1024, OSL uniform 10-20, the first 5 a warm-up, seed 7", w.describe());
        assertTrue(build("--rate", "2.5", "--burstiness", "0.5", "--isl", "100", "--osl", "10", "--random-range-ratio", "0.5",
                "--prefix-share", "0.2").describe().startsWith("gamma arrivals at 2.5 req/s"));
    }

    @Test
    void badValuesNameTheirFlag() {
        assertEquals("--rate 0.0: expected requests per second above 0 and at most 1,000,000",
                assertThrows(InputException.class, () -> build("--rate", "0", "--isl", "1", "--osl", "1")).getMessage());
        assertTrue(assertThrows(InputException.class, () -> build("--concurrency", "2", "--isl", "poisson:3", "--osl", "1")).getMessage()
                .startsWith("--isl 'poisson:3': unknown distribution 'poisson'"));
        assertTrue(assertThrows(InputException.class, () -> build("--trace", "no-such-trace.csv")).getMessage()
                .startsWith("no-such-trace.csv: cannot read (no such file)"));
    }
}
