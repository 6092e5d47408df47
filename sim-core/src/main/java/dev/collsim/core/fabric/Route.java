package dev.collsim.core.fabric;

/**
 * The directed links a transfer crosses from one device to another, in order, and the sum of
 * their latencies in picoseconds. {@code viaNic} is true when the route leaves through a network
 * card (NCCL's network transport, with its proxy thread, instead of a direct peer-to-peer copy).
 * The array is owned by the fabric's route cache: do not modify it.
 */
public record Route(int from, int to, int[] links, long latencyPicos, boolean viaNic) {}
