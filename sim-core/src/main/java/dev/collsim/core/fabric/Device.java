package dev.collsim.core.fabric;

import java.util.Set;

/** A device of the fabric; {@code id} is its index in {@link Fabric#devices()}. */
public record Device(int id, String name, DeviceKind kind, Set<Capability> capabilities) {
    public Device {
        capabilities = Set.copyOf(capabilities);
    }

    public boolean has(Capability c) {
        return capabilities.contains(c);
    }
}
