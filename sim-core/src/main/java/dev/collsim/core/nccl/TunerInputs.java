package dev.collsim.core.nccl;

/**
 * What NCCL's tuner knows of a communicator.
 *
 * @param nvls              the NVLS graph, or null where NVLS is unavailable (no NVLS switch, or turned off)
 * @param latencyInterMicros the network plugin's extra latency per network step ({@code graph->latencyInter})
 * @param collNet           whether in-network reduction is available and enabled
 * @param version           the NCCL release whose tuner this is
 */
public record TunerInputs(int nRanks, int nNodes, NcclArch arch, LinkType intraLink, RingGraph ring, NvlsGraph nvls,
                          double latencyInterMicros, boolean collNet, NcclVersion version) {}
