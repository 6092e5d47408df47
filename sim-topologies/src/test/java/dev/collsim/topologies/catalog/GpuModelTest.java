package dev.collsim.topologies.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.NcclArch;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuModelTest {
    @Test
    void theCatalogueReadsEveryEntryOnceAndInOrder() {
        List<String> names = GpuModel.all().stream().map(GpuModel::shortName).toList();
        assertEquals(List.of("a100", "h100", "h200", "b200", "gb200", "b300", "gb300", "h100-pcie", "l40s", "rtxpro6000", "rtx4090",
                "rtx2080ti", "mi300x", "mi325x", "mi355x"), names);
        assertSame(GpuModel.H100_SXM, GpuModel.byName("H100"));
        GpuModel.Roofline h100 = GpuModel.H100_SXM.roofline();
        assertEquals(989.4, h100.bf16Tflops());
        assertEquals(1978.9, h100.tflops(8));
        assertEquals(1978.9, h100.tflops(4), "Hopper has no FP4 rate: FP4 runs at FP8's");
        assertEquals(80.0 * (1L << 30), h100.hbmBytes());
        assertEquals(NcclArch.HOPPER, GpuModel.H100_SXM.arch());
        assertEquals(NvLinkGeneration.NVLINK4, GpuModel.H100_SXM.nvlink());
        assertEquals(18, GpuModel.H100_SXM.nvlinks());
        assertNull(GpuModel.L40S.nvlink());
        assertEquals(0, GpuModel.L40S.nvlinks());
        assertFalse(GpuModel.RTX_4090.peerToPeer());
        assertTrue(GpuModel.RTX_PRO_6000.peerToPeer());
        assertEquals(NcclArch.BLACKWELL, GpuModel.RTX_PRO_6000.arch());
        assertNull(GpuModel.H100_SXM.xgmi());
        assertEquals(7, GpuModel.MI300X.xgmi().links());
        assertEquals(64.0, GpuModel.MI300X.xgmi().rawRate().gigabytesPerSecond(), 1e-9);
        assertTrue(GpuModel.MI355X.arch().rccl());
        assertEquals(10066.3, GpuModel.MI355X.roofline().tflops(4));
        assertEquals(2614.9, GpuModel.MI300X.roofline().tflops(4), "CDNA 3 has no FP4 rate: FP4 runs at FP8's");
    }

    @Test
    void anUnknownNameListsTheCatalogue() {
        InputException e = assertThrows(InputException.class, () -> GpuModel.byName("mi250x"));
        assertTrue(e.getMessage().startsWith("unknown GPU 'mi250x'; expected one of a100, h100, h200, b200"), e.getMessage());
    }

    /** An entry without a source for a number, or with a field the catalogue does not know, is refused by entry and field. */
    @Test
    void everyNumberNeedsItsSource() {
        Map<String, Object> entry = new HashMap<>(Map.of("name", "x1", "label", "X1", "nccl_arch", "hopper", "peer_to_peer", true,
                "bf16_tflops", 1, "fp8_tflops", 2, "fp4_tflops", 0, "hbm_gb", 80, "hbm_tbps", 3, "sms", 100));
        Map<String, Object> sources = new HashMap<>(Map.of("bf16_tflops", "a", "fp8_tflops", "b", "fp4_tflops", "c", "hbm_gb", "d",
                "hbm_tbps", "e", "sms", "f"));
        entry.put("sources", sources);
        assertEquals(100, new GpuModel.Entry(entry).model().roofline().sms());
        sources.remove("hbm_tbps");
        assertEquals("/catalog/gpus.yaml: x1: sources.hbm_tbps: every number needs its source",
                assertThrows(IllegalStateException.class, () -> new GpuModel.Entry(entry).model()).getMessage());
        sources.put("hbm_tbps", "e");
        entry.put("tdp_w", 700);
        assertTrue(assertThrows(IllegalStateException.class, () -> new GpuModel.Entry(entry).model()).getMessage()
                .startsWith("/catalog/gpus.yaml: x1: tdp_w: unknown field"));
    }
}
