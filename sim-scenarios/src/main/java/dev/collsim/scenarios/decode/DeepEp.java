package dev.collsim.scenarios.decode;

/**
 * DeepEP's dispatch and combine kernels (deepseek-ai/DeepEP), which send each token's copies to its experts' ranks by
 * direct writes, NVLink to the ranks of the GPU's NVLink domain and RDMA (InfiniBand GPUDirect Async, no CPU proxy) to
 * the others, all at once, outside NCCL. One kernel's time is its fixed part and the slower of its two paths:
 * {@code FIXED_US + max(NVLink bytes / the GPU's NVLink rate, RDMA bytes / (its NICs' line rate x RDMA_EFFICIENCY))}.
 * <ul>
 *   <li>Low-latency kernels (decode): every token-expert copy is its own message, so a token picked by k experts on
 *       remote ranks crosses the network k times.</li>
 *   <li>Normal kernels (prefill): a token crosses the network once per remote node it has experts on, and the
 *       receiving GPU forwards it over NVLink to the node's ranks that need it.</li>
 * </ul>
 * Both constants are fitted to DeepEP's published low-latency figures (H800 with ConnectX-7 at 400 Gb/s, 128 tokens a
 * rank, hidden 7,168, top 8, FP8 dispatch and BF16 combine; ../shared/reference/nccl-and-decode.md): dispatch 77, 118,
 * 155, 173, 192, 194 us and combine 114, 195, 273, 314, 369, 360 us at EP 8 to 256. The dispatch's 7.59 MB a rank (7,168
 * bytes, 56 FP32 scales and its index a copy) at EP 16-256 go out at 45.7 GB/s after 35 us, the combine's 14.7 MB at
 * 45.6 GB/s after 34 us: one fixed time and 91 % of the NIC's 50 GB/s explain both within 9 %. The normal kernels'
 * fixed time is taken to be the same (DeepEP publishes their bandwidth at prefill sizes, where it does not show).
 * Not on the fabric: a DeepEP kernel does not contend with the step's other collectives on one clock.
 */
final class DeepEp {
    /** One kernel's fixed time: its launch, the per-expert receive counters' signals, the wait for the last one. */
    static final double FIXED_US = 35;
    /** Payload rate of DeepEP's RDMA writes as a share of the NICs' line rate. */
    static final double RDMA_EFFICIENCY = 0.91;
    /** SMs a kernel holds: DeepEP's Buffer.num_sms default, 20. */
    static final int SMS = 20;

    private DeepEp() {}

    /** What DeepEP's kernels see of a GPU: its NVLink rate a direction and its NICs' line rate together, GB/s. */
    record Rates(double nvlinkGBps, double nicGBps) {}

    /**
     * One kernel, us.
     *
     * @param bytes      what a rank sends, its top-k copies of its tokens counted each
     * @param ep         the EP ranks
     * @param domain     ranks of one NVLink domain (a node of HGX, a rack of NVL72), at most {@code ep}
     * @param topK       copies a token makes
     * @param lowLatency the low-latency kernels (decode) rather than the normal ones (prefill)
     * @param rates      the GPU's NVLink and NIC rates
     */
    static double micros(double bytes, int ep, int domain, int topK, boolean lowLatency, Rates rates) {
        int local = Math.min(ep, domain);
        double nvlink = bytes * (local - 1) / ep;
        double remote = bytes * (ep - local) / ep;
        if (!lowLatency && remote > 0) {
            // A token's k picks fall on N domains; it crosses once per remote domain it has picks on, then NVLink forwards.
            double domains = (double) ep / local;
            double crossings = (domains - 1) * (1 - Math.pow(1 - 1 / domains, topK));
            double copies = topK * (domains - 1) / domains;
            nvlink += remote;
            remote *= crossings / copies;
        }
        double nvlinkUs = nvlink / (rates.nvlinkGBps() * 1e3);
        double rdmaUs = remote > 0 ? remote / (rates.nicGBps() * RDMA_EFFICIENCY * 1e3) : 0;
        return FIXED_US + Math.max(nvlinkUs, rdmaUs);
    }
}
