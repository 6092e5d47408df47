/**
 * The requests of a load run: when each arrives (closed loop, Poisson or gamma arrivals, or a
 * published trace's timestamps), its prompt and output lengths (fixed, drawn from a distribution on
 * seeded MRG32k3a streams, or the trace's), and the prompt's blocks that earlier requests share
 * (prefix caching).
 */
package dev.collsim.scenarios.load.workload;
