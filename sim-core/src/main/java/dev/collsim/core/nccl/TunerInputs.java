package dev.collsim.core.nccl;

/**
 * What NCCL's tuner knows of a communicator.
 *
 * @param nvls the NVLS graph, or null where NVLS is unavailable (no NVLS switch, or turned off)
 */
public record TunerInputs(int nRanks, int nNodes, NcclArch arch, LinkType intraLink, RingGraph ring, NvlsGraph nvls) {}
