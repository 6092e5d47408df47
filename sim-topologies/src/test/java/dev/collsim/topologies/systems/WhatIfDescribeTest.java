package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.units.Rate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What-ifs in force, said as their flags, and which of them act only between nodes. */
class WhatIfDescribeTest {
    @Test
    void noKnobSaysNothing() {
        assertEquals("", WhatIf.NONE.describe());
        assertEquals(List.of(), WhatIf.NONE.networkOnly());
    }

    @Test
    void everyKnobIsSaidAsItsFlag() {
        WhatIf w = new WhatIf(Rate.parse("200Gb/s"), 2, 4, 2, false,
                Map.of(WhatIf.LinkClass.NVLINK, 0.5, WhatIf.LinkClass.NETWORK, 2.0), Map.of(WhatIf.LinkClass.NETWORK, 3.0),
                List.of(new LinkEdit("n0.gpu3", "n0.pcie3", 0.5), LinkEdit.down("n0.nic3", "leaf3")));
        assertEquals("--nic-bw " + Rate.parse("200Gb/s") + ", --nics-per-gpu 2, --oversubscription 4:1, --spines 2, --gdr off,"
                + " --scale nvlink=0.5,network=2, --scale-latency network=3, --degrade n0.gpu3:n0.pcie3=0.5, --link-down n0.nic3:leaf3",
                w.describe());
        assertEquals(List.of("--nic-bw", "--nics-per-gpu", "--oversubscription", "--spines", "--gdr off", "network scaling"), w.networkOnly());
    }

    @Test
    void scalingNvlinkActsInsideANode() {
        WhatIf w = new WhatIf(null, 0, 1, 1, true, Map.of(WhatIf.LinkClass.NVLINK, 0.5), Map.of(), List.of());
        assertEquals("--scale nvlink=0.5", w.describe());
        assertEquals(List.of(), w.networkOnly());
    }
}
