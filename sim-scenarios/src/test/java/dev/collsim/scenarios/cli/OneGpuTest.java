package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A collective on one GPU is NCCL's one-rank copy, not an internal error (issue #40 item 3). */
class OneGpuTest {
    @Test
    void everyOperationOnOneGpuIsACopyInItsMemory() {
        for (String op : new String[] {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"}) {
            CliRunner r = CliRunner.run("bench", op, "--gpus-per-node", "1", "-b", "8", "-e", "1G", "-f", "1024", "--format", "csv");
            assertEquals(0, r.code(), op + ": " + r.err());
            assertTrue(r.out().contains("OneRank"), op + ": " + r.out());
        }
    }

    /** 256 MiB read and written once at 88 % of an H100's 3.35 TB/s: about 182 us; 8 bytes cost the host's issue time alone. */
    @Test
    void theCopyTakesItsBytesOverHalfOfHbm() {
        double big = CliRunner.timeUs("bench", "all_reduce", "--gpus-per-node", "1", "-b", "256M", "-e", "256M", "--format", "csv");
        assertEquals(268435456 / (3.35e12 / 2 * 0.88) * 1e6, big, 5);
        double small = CliRunner.timeUs("bench", "all_reduce", "--gpus-per-node", "1", "-b", "8", "-e", "8", "--format", "csv");
        assertTrue(small > 1 && small < 10, small + " us");
    }

    @Test
    void explainOnOneRankSaysWhatNcclDoes() {
        CliRunner r = CliRunner.run("explain", "all_reduce", "--ranks", "1", "--size", "1MiB");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("one rank communicates nothing"), r.out());
    }
}
