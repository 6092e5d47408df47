/**
 * Collectives: an algorithm turns (operation, ranks, bytes, protocol, channels) into a schedule
 * of chunk transfers with dependencies; the runner executes it on the engine over the fabric.
 * Algorithm, logical topology (ring order) and physical fabric stay separate.
 */
package dev.collsim.core.collective;
