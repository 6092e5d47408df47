package dev.collsim.core.nccl;

/** What NCCL's tuner knows of a communicator. */
public record TunerInputs(int nRanks, int nNodes, NcclArch arch, LinkType intraLink, RingGraph ring) {}
