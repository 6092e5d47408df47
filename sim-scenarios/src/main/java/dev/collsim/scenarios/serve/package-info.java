/**
 * Serving plans: a model at an input and output length, within a time-to-first-token and an
 * inter-token latency target, served aggregated (prefill chunks inside the decode steps) or
 * disaggregated (prefill and decode instances, the KV cache moved between them), from simulated
 * steps and a queue for the prefills.
 */
package dev.collsim.scenarios.serve;
