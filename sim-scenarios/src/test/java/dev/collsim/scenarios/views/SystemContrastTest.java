package dev.collsim.scenarios.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.decode.ServingEngine;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SystemContrastTest {
    /**
     * An MI355X node against an HGX B200, whichever wins: HBM capacity (288 against 180 GB), bandwidth and the FP8 rate on
     * MI355X's side, the scale-up fabric (NVSwitch against the xGMI mesh) on B200's, and the kernels' different sources.
     */
    @Test
    void eachFactorGoesToTheSideItFavours() {
        String why = SystemContrast.why("hgx-b200", "mi355x-8x", 8, 256, 128, ServingEngine.VLLM).orElseThrow();
        int mi355x = why.indexOf("in mi355x-8x's favour");
        int b200 = why.indexOf("in hgx-b200's favour");
        assertTrue(b200 >= 0 && mi355x > b200, why);
        assertTrue(why.substring(b200, mi355x).contains("scale-up fabric 1.79x"), why);
        String forMi355x = why.substring(mi355x);
        assertTrue(forMi355x.contains("HBM capacity 1.60x (180 against 288 GB; batch 256 against 128)"), why);
        assertTrue(forMi355x.contains("dense FP8 rate 1.12x"), why);
        assertTrue(why.contains("kernels priced from aiconfigurator's vllm tables against AITER's tuned-kernel tables (AMD)"), why);
    }

    /** Two GPUs alike in a factor (within 3 %) name it on neither side; a topology file's system has no contrast. */
    @Test
    void evenFactorsAndFilesSayNothing() {
        String why = SystemContrast.why("hgx-h200", "hgx-h100", 8, 0, 0, ServingEngine.VLLM).orElseThrow();
        assertTrue(!why.contains("scale-up fabric") && !why.contains("FP8 rate"), why);
        assertTrue(why.contains("HBM capacity 1.76x"), why);
        assertEquals(Optional.empty(), SystemContrast.why("my-cluster.yaml", "hgx-h100", 8, 0, 0, ServingEngine.VLLM));
    }
}
