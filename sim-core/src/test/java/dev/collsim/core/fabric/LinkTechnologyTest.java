package dev.collsim.core.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A file's link class names its technology and lanes once, at the input boundary. */
class LinkTechnologyTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({"NVLink4 x18, NVLINK, 18", "my nvlink bridge x4, NVLINK, 4", "PCIe Gen4 x16, PCIE, 16", "pcie, PCIE, 1",
        "socket link, OTHER, 1", "ib x2 spine, OTHER, 1", "cable xab, OTHER, 1", "NVLink x0, NVLINK, 1"})
    void aClassNamesItsTechnologyAndLanes(String linkClass, LinkTechnology technology, int lanes) {
        assertEquals(technology, LinkTechnology.named(linkClass));
        assertEquals(lanes, LinkTechnology.lanesNamed(linkClass));
    }
}
