package dev.collsim.scenarios.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class DeepEpTest {
    /** An H800's eight NVLinks (about 160 GB/s a direction, DeepSeek's measurement) and one ConnectX-7 at 400 Gb/s. */
    private static final DeepEp.Rates H800 = new DeepEp.Rates(160, 50);
    /**
     * DeepEP's published low-latency figures (H800, eight NVLinks at about 160 GB/s a direction, ConnectX-7 at 50 GB/s;
     * 128 tokens a rank, top 8, hidden 7,168): the dispatch's 7,408 bytes a copy (FP8 values, 56 FP32 scales, an index),
     * the combine's 14,336 (BF16). The two constants were fitted to these rows, so this holds the fit, within 10 %.
     */
    @Test
    void theFitHoldsDeepEpsPublishedLowLatencyFigures() {
        int[] ep = {16, 32, 64, 128, 256};
        double[] dispatch = {118, 155, 173, 192, 194};
        double[] combine = {195, 273, 314, 369, 360};
        for (int i = 0; i < ep.length; i++) {
            double d = DeepEp.micros(128 * 8 * 7408.0, ep[i], 8, 8, true, H800);
            double c = DeepEp.micros(128 * 8 * 14336.0, ep[i], 8, 8, true, H800);
            assertEquals(dispatch[i], d, dispatch[i] * 0.10, "dispatch at EP " + ep[i]);
            assertEquals(combine[i], c, combine[i] * 0.10, "combine at EP " + ep[i]);
        }
        // Inside one NVLink domain only NVLink carries it: 7/8 of 7.59 MB at 160 GB/s after the fixed time, DeepEP's 77 us.
        assertEquals(DeepEp.FIXED_US + 128 * 8 * 7408.0 * 7 / 8 / 160e3, DeepEp.micros(128 * 8 * 7408.0, 8, 8, 8, true, H800), 1e-9);
    }

    /**
     * The normal kernels send a token across the network once per remote node it has experts on: on two nodes of eight
     * with top 8, a token's remote copies (4 on average) cross as 1 - 1/2^8 = 0.996 messages, so the RDMA bytes are
     * 0.249 of the low-latency kernels'.
     */
    @Test
    void theNormalKernelsCrossTheNetworkOncePerNode() {
        double bytes = 64e6;
        double remote = bytes / 2;
        double normal = remote * (1 - Math.pow(0.5, 8)) / 4;
        assertEquals(DeepEp.FIXED_US + normal / (50 * DeepEp.RDMA_EFFICIENCY * 1e3), DeepEp.micros(bytes, 16, 8, 8, false, new DeepEp.Rates(1e9, 50)), 1e-6);
        assertEquals(DeepEp.FIXED_US + remote / (50 * DeepEp.RDMA_EFFICIENCY * 1e3), DeepEp.micros(bytes, 16, 8, 8, true, new DeepEp.Rates(1e9, 50)), 1e-6);
    }

    /** In a step, DeepSeek-V3 over EP 32 of HGX H100 nodes: DeepEP's dispatch is a kernel of the formula's time, not a collective. */
    @Test
    void aStepTimesDeepEpsKernelsByTheirRates() {
        DecodeSpec spec = new DecodeSpec(ModelConfig.load("deepseek-v3"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 1, 1, 32, 32,
                128, 4096, Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true).withExchange(ExpertParallel.Exchange.DEEPEP);
        List<DecodeResult.Span> layer = DecodeStep.run(spec).layers().get(3).spans();
        DecodeResult.Span dispatch = layer.stream().filter(s -> s.name().equals("dispatch")).findFirst().orElseThrow();
        // 128 tokens x 8 copies x 7,168 FP8 bytes a rank; 18 NVLink4 links at 20.6 GB/s, one 400 Gb/s NIC a GPU.
        double micros = DeepEp.micros(128 * 8 * 7168L, 32, 8, 8, true, new DeepEp.Rates(18 * 20.6, 50));
        double launch = new KernelCosts(dev.collsim.topologies.catalog.GpuModel.H100_SXM, true, ServingEngine.DEFAULT).launchMicros();
        assertEquals(micros + launch, (dispatch.end().ms() - dispatch.start().ms()) * 1000, 1e-6);
        assertTrue(micros > 150 && micros < 170, "EP 32 over IB: about DeepEP's 155 us, " + micros);
    }

    @Test
    void refusesWhereItCannotRun() {
        DecodeSpec pcie = new DecodeSpec(ModelConfig.load("mixtral-8x7b"), DecodeSystem.preset("pcie-l40s-8x"), OptionalInt.empty(), 1, 1, 4, 4,
                8, 1024, Precision.FP8, AllReduceKind.AUTO, Overlap.NONE, true).withExchange(ExpertParallel.Exchange.DEEPEP);
        assertTrue(assertThrows(InputException.class, () -> DecodeStep.run(pcie)).getMessage().contains("DeepEP's kernels need NVLink"));
    }
}
