/**
 * A deployment under load, request by request: requests arrive (a closed loop of N in flight, an
 * open Poisson or gamma stream, or a replayed trace), a router sends each to an instance, the
 * instance's engine scheduler builds every step (continuous batching, chunked prefill under a token
 * budget, the KV cache as blocks, preemption, prefix caching), and each step takes what the per-layer
 * simulator says a step of that content takes ({@link dev.collsim.scenarios.load.StepCosts}). What a
 * serving benchmark prints comes out: TTFT, TPOT, ITL and end-to-end latency per request, and the
 * instances' batch, queue and cache over time.
 */
package dev.collsim.scenarios.load;
