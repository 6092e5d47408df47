package dev.collsim.core.fabric;

/** A device of the fabric; {@code id} is its index in {@link Fabric#devices()}. */
public record Device(int id, String name, DeviceKind kind) {}
