/**
 * The network model: flows of bytes over routes share links by max-min fairness (progressive
 * filling) with per-flow rate caps. {@link dev.collsim.core.flow.MaxMinSolver} keeps the rates,
 * re-rating only what a change reaches, and knows neither bytes nor time; {@link
 * dev.collsim.core.flow.FlowNetwork} moves the bytes on the engine's clock. This is the hot loop of
 * every simulation.
 */
package dev.collsim.core.flow;
