package dev.collsim.core.fabric;

/**
 * The directed links a transfer crosses from one device to another, in order, and the sum of
 * their latencies in picoseconds. The array is owned by the fabric's route cache: do not modify it.
 */
public record Route(int from, int to, int[] links, long latencyPicos) {}
