package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code --nccl}: the release whose searches and tuner choose, as bench and explain run it. */
class NcclReleaseTest {
    /** The csv row of a one-size bench: its columns. */
    private static String[] row(String... args) {
        return CliRunner.csvRows(args).get(0);
    }

    /**
     * On one HGX B200 node NVLS runs NVLS_NCHANNELS_SM100's 32 channels under NCCL 2.26 and
     * NVLS_NCHANNELS_SM100_NVL's 24 from 2.27; across two nodes 32 again.
     */
    @Test
    void blackwellsNvlsChannelsAreTheReleases() {
        String[] v226 = row("bench", "all_reduce", "--system", "hgx-b200", "-b", "64M", "-e", "64M", "--nccl", "2.26", "--format", "csv");
        String[] newest = row("bench", "all_reduce", "--system", "hgx-b200", "-b", "64M", "-e", "64M", "--format", "csv");
        String[] twoNodes = row("bench", "all_reduce", "--system", "hgx-b200", "--nodes", "2", "-b", "64M", "-e", "64M", "--algo", "nvlstree",
                "--format", "csv");
        assertEquals("NVLS", v226[8]);
        assertEquals("NVLS", newest[8]);
        assertEquals("32", v226[10]);
        assertEquals("24", newest[10]);
        assertEquals("32", twoNodes[10]);
    }

    /** The table says which release chose when it is not the newest, and JSON always does. */
    @Test
    void theTableNamesAnOlderRelease() {
        CliRunner older = CliRunner.run("bench", "all_reduce", "-b", "1M", "-e", "1M", "--nccl", "2.27.3");
        assertEquals(0, older.code(), older.err());
        assertTrue(older.out().contains("# NCCL 2.27.7 chooses algorithms, protocols and channels (the newest modelled is 2.30.7)"),
                older.out());
        CliRunner newest = CliRunner.run("bench", "all_reduce", "-b", "1M", "-e", "1M");
        assertFalse(newest.out().contains("chooses algorithms"), newest.out());
        CliRunner json = CliRunner.run("bench", "all_reduce", "-b", "1M", "-e", "1M", "--nccl", "2.23", "--format", "json");
        assertTrue(json.out().contains("\"nccl\" : \"2.23.4\"") || json.out().contains("\"nccl\":\"2.23.4\""), json.out());
    }

    /** explain draws the schedule the release's searches give: Blackwell's NVLS channels again. */
    @Test
    void explainRunsTheRelease() {
        CliRunner v226 = CliRunner.run("explain", "all_reduce", "--system", "hgx-b200", "--ranks", "8", "--algo", "nvls", "--channels", "0",
                "--nccl", "2.26", "--format", "csv");
        CliRunner newest = CliRunner.run("explain", "all_reduce", "--system", "hgx-b200", "--ranks", "8", "--algo", "nvls", "--channels",
                "0", "--format", "csv");
        assertEquals(0, v226.code(), v226.err());
        assertEquals(0, newest.code(), newest.err());
        assertFalse(v226.out().equals(newest.out()), "32 channels against 24 give another schedule");
    }
}
