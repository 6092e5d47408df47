package dev.collsim.scenarios.stochastic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import umontreal.ssj.rng.MRG32k3a;

/** Streams seeded one by one draw exactly what SSJ's streams after a package seed draw. */
class Mrg32k3aStreamsTest {
    @Test
    void theStreamsAreSsjsStreamsFromThePackageSeed() {
        long[] seed = {12, 34, 56, 78, 90, 4294944442L};
        MRG32k3a[] ours = Mrg32k3aStreams.of(seed, 4);
        MRG32k3a[] ssj = new MRG32k3a[4];
        synchronized (MRG32k3a.class) {
            MRG32k3a.setPackageSeed(seed);
            for (int k = 0; k < 4; k++) {
                ssj[k] = new MRG32k3a();
            }
        }
        for (int k = 0; k < 4; k++) {
            for (int substream = 0; substream < 3; substream++) {
                for (int i = 0; i < 5; i++) {
                    assertEquals(ssj[k].nextDouble(), ours[k].nextDouble(), "stream " + k + ", substream " + substream + ", draw " + i);
                }
                ssj[k].resetNextSubstream();
                ours[k].resetNextSubstream();
            }
        }
    }
}
