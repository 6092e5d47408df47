package dev.collsim.core.nccl;

/** The link classes NCCL's latency table distinguishes ({@code hwLat[NVLINK|PCI|NET]}). */
public enum LinkType {
    NVLINK,
    PCI,
    NET
}
