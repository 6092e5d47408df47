package dev.collsim.core.fabric;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/** Collects devices and links, validates them, then freezes them into a {@link Fabric}. */
public final class FabricBuilder {
    private final List<Device> devices = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private final List<Link> links = new ArrayList<>();

    /** Adds a device and returns its id. Names are unique. */
    public int addDevice(String name, DeviceKind kind) {
        return addDevice(name, kind, Set.of());
    }

    /** Adds a device with in-network capabilities (switches only) and returns its id. */
    public int addDevice(String name, DeviceKind kind, Set<Capability> capabilities) {
        if (!capabilities.isEmpty() && !kind.forwards()) {
            throw new InputException("device '" + name + "': only switches can have " + capabilities);
        }
        if (name == null || name.isBlank()) {
            throw new InputException("a device needs a non-empty name");
        }
        if (names.contains(name)) {
            throw new InputException("device '" + name + "' is defined twice");
        }
        int id = devices.size();
        devices.add(new Device(id, name, kind, capabilities));
        names.add(name);
        return id;
    }

    /** Adds one directed link, described by its class alone (a file's: technology and lanes read from it), and returns its id. */
    public int addLink(int from, int to, Rate rate, TimeSpan latency, String linkClass) {
        return addLink(from, to, rate, latency, linkClass, LinkTechnology.named(linkClass), LinkTechnology.lanesNamed(linkClass));
    }

    /** Adds one directed link and returns its id. */
    public int addLink(int from, int to, Rate rate, TimeSpan latency, String linkClass, LinkTechnology technology, int lanes) {
        checkDevice(from);
        checkDevice(to);
        if (from == to) {
            throw new InputException("link from '" + devices.get(from).name() + "' to itself");
        }
        if (rate == null || latency == null) {
            throw new InputException("link " + devices.get(from).name() + " -> " + devices.get(to).name()
                    + " needs a rate and a latency");
        }
        int id = links.size();
        links.add(new Link(id, from, to, rate, latency, linkClass, technology, lanes));
        return id;
    }

    /** A full-duplex connection described by its class alone: two links, one per direction. */
    public void addDuplex(int a, int b, Rate ratePerDirection, TimeSpan latency, String linkClass) {
        addDuplex(a, b, ratePerDirection, latency, linkClass, LinkTechnology.named(linkClass), LinkTechnology.lanesNamed(linkClass));
    }

    /** A full-duplex connection: two links, one per direction, each at {@code ratePerDirection}. */
    public void addDuplex(int a, int b, Rate ratePerDirection, TimeSpan latency, String linkClass, LinkTechnology technology,
                          int lanes) {
        addLink(a, b, ratePerDirection, latency, linkClass, technology, lanes);
        addLink(b, a, ratePerDirection, latency, linkClass, technology, lanes);
    }

    private void checkDevice(int id) {
        if (id < 0 || id >= devices.size()) {
            throw new InputException("unknown device id " + id);
        }
    }

    /** Validates (at least one GPU, every device connected, every GPU with a route to every other) and freezes. */
    public Fabric build() {
        if (devices.stream().noneMatch(d -> d.kind() == DeviceKind.GPU)) {
            throw new InputException("the fabric has no GPU");
        }
        checkConnected();
        Fabric fabric = new Fabric(devices, links);
        // Every pair, not just GPU 0 and each other: GPUs relay only as PXN does, so reaching GPU 0
        // from two GPUs does not join them.
        List<Device> gpus = fabric.devicesOfKind(DeviceKind.GPU);
        if (fabric.router().oneGroupJoinsAllGpus()) {
            return fabric;
        }
        // A search per GPU, on all cores (searches only read the fabric); the first gap in GPU order is reported.
        int[] firstUnreached = new int[gpus.size()];
        IntStream.range(0, gpus.size()).parallel().forEach(i -> {
            boolean[] reached = fabric.router().reachableFrom(gpus.get(i).id());
            firstUnreached[i] = -1;
            for (int j = 0; j < gpus.size(); j++) {
                if (j != i && !reached[gpus.get(j).id()]) {
                    firstUnreached[i] = j;
                    break;
                }
            }
        });
        for (int i = 0; i < gpus.size(); i++) {
            if (firstUnreached[i] >= 0) {
                throw new InputException("GPU '" + gpus.get(i).name() + "' has no route to GPU '" + gpus.get(firstUnreached[i]).name()
                        + "' through switches, CPUs or NICs");
            }
        }
        return fabric;
    }

    private void checkConnected() {
        List<List<Integer>> adjacent = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            adjacent.add(new ArrayList<>());
        }
        for (Link l : links) {
            adjacent.get(l.from()).add(l.to());
            adjacent.get(l.to()).add(l.from());
        }
        boolean[] seen = new boolean[devices.size()];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(0);
        seen[0] = true;
        while (!queue.isEmpty()) {
            for (int next : adjacent.get(queue.poll())) {
                if (!seen[next]) {
                    seen[next] = true;
                    queue.add(next);
                }
            }
        }
        for (Device d : devices) {
            if (!seen[d.id()]) {
                throw new InputException("device '" + d.name() + "' is not connected to '" + devices.get(0).name() + "'");
            }
        }
    }
}
