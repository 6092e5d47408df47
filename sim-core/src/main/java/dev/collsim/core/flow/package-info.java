/**
 * The network model: flows of bytes over routes share links by max-min fairness (progressive
 * filling) with per-flow rate caps, recomputed only for the component a start or finish touches.
 * This is the hot loop of every simulation.
 */
package dev.collsim.core.flow;
