package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * NCCL's point-to-point channel rules (paths.cc, enqueue.cc, sendrecv.h) as bench runs them: the
 * channels a send takes, per peer and with its size, and what one channel carries.
 */
class P2pChannelsTest {
    /**
     * Inside an HGX B200 node a sendrecv starts on 4 of the 32 p2p channels (every rank's send its
     * own) and doubles them only as a part passes 32 chunks: 64 MiB to 512 MiB take the same time,
     * as VULTR_B200_1N8's ~0.8 ms measure.
     */
    @Test
    void insideANodeChannelsDoubleWithTheSize() {
        List<String[]> r = CliRunner.csvRows("bench", "sendrecv", "--system", "hgx-b200", "-b", "64M", "-e", "512M", "-f", "2",
                "--format", "csv");
        assertEquals(List.of("4", "8", "16", "32"), r.stream().map(c -> c[10]).toList());
        double first = Double.parseDouble(r.get(0)[5]);
        for (String[] c : r) {
            assertEquals(first, Double.parseDouble(c[5]), first * 1e-6, "every size takes the same time: " + String.join(",", c));
        }
        assertTrue(first > 700 && first < 900, first + " us");
    }

    /**
     * Across nodes a peer gets one channel a NIC and enough for its 400 Gb/s at 14 GB/s each (4), halved
     * as the ranks outgrow one round of p2p channels; a channel to a network peer carries 14 GB/s.
     */
    @Test
    void acrossNodesChannelsPerPeerFollowTheNicsAndTheRanks() {
        String[] two = CliRunner.csvRows("bench", "sendrecv", "--system", "hgx-b200", "--nodes", "2", "-b", "256M", "-e", "256M",
                "--format", "csv").get(0);
        String[] eight = CliRunner.csvRows("bench", "sendrecv", "--system", "hgx-b200", "--nodes", "8", "-b", "256M", "-e", "256M",
                "--format", "csv").get(0);
        assertEquals("4", two[10]);
        assertEquals("2", eight[10]);
        double busbw2 = Double.parseDouble(two[7]);
        double busbw8 = Double.parseDouble(eight[7]);
        assertTrue(busbw2 > 40 && busbw2 < 50, "2 nodes: four channels, NIC-bound: " + busbw2 + " GB/s");
        assertTrue(busbw8 > 20 && busbw8 <= 28, "8 nodes: two channels of at most 14 GB/s each: " + busbw8 + " GB/s");
    }
}
