/**
 * NCCL's own knowledge, reproduced: its per-generation constants, its ring search, its cost model
 * and the choice of algorithm, protocol, channels and threads that follows from them. Everything
 * here cites the NCCL source file it comes from.
 */
package dev.collsim.core.nccl;
