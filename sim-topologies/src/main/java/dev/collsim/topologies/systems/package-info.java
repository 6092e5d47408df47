/** Builders of whole systems (fabric, ranks, NCCL's view of them) by family, and the named presets. */
package dev.collsim.topologies.systems;
