package dev.collsim.scenarios.bench;

/**
 * One line of a bench table, as nccl-tests defines its columns (GB = 1e9 bytes).
 *
 * @param sizeBytes   nccl-tests' size: one rank's buffer, or the total for all_gather and reduce_scatter
 * @param count       elements per rank (per-rank send count for all_gather, receive count for reduce_scatter)
 * @param root        the root, or -1 for operations without one
 * @param timeMicros  steady-state time per iteration (the slower of the simulated collective and the host issue time)
 */
public record BenchRow(long sizeBytes, long count, String type, String redop, int root, double timeMicros,
                       double algBwGBps, double busBwGBps, String algo, String proto, int channels) {}
