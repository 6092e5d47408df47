/** The nccl-tests workload: sizes, data types, reductions, and the simulated sweep with its table. */
package dev.collsim.scenarios.bench;
