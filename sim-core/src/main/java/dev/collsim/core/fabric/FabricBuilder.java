package dev.collsim.core.fabric;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
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


    /** Adds one directed link and returns its id. */
    public int addLink(int from, int to, Rate rate, TimeSpan latency, String linkClass) {
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
        links.add(new Link(id, from, to, rate, latency, linkClass));
        return id;
    }

    /** Adds a full-duplex connection: one directed link each way with the same per-direction rate. */
    public void addDuplex(int a, int b, Rate ratePerDirection, TimeSpan latency, String linkClass) {
        addLink(a, b, ratePerDirection, latency, linkClass);
        addLink(b, a, ratePerDirection, latency, linkClass);
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
        if (oneGroupJoinsAllGpus()) {
            return fabric;
        }
        // A search per GPU, on all cores (searches only read the fabric); the first gap in GPU order is reported.
        int[] firstUnreached = new int[gpus.size()];
        IntStream.range(0, gpus.size()).parallel().forEach(i -> {
            boolean[] reached = fabric.reachableFrom(gpus.get(i).id());
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

    /**
     * Whether one strongly connected group of forwarding devices (switches, CPUs, NICs) has a link
     * from every GPU and a link to every GPU: then every GPU reaches every other through it, and the
     * search per GPU (which finds every route through forwarding devices, and more) is not needed.
     * A cluster's network, or one node's NVSwitch, is such a group.
     */
    private boolean oneGroupJoinsAllGpus() {
        int[][] out = linksOf(false);
        int[][] in = linksOf(true);
        int[] group = forwardingGroups(out, in);
        int groups = Arrays.stream(group).max().orElse(-1) + 1;
        int[] fromGpus = new int[groups];
        int[] toGpus = new int[groups];
        int[] lastFrom = new int[groups];
        int[] lastTo = new int[groups];
        Arrays.fill(lastFrom, -1);
        Arrays.fill(lastTo, -1);
        int gpus = 0;
        for (Device d : devices) {
            if (d.kind() != DeviceKind.GPU) {
                continue;
            }
            gpus++;
            for (int l : out[d.id()]) {
                int g = group[links.get(l).to()];
                if (g >= 0 && lastFrom[g] != d.id()) {
                    lastFrom[g] = d.id();
                    fromGpus[g]++;
                }
            }
            for (int l : in[d.id()]) {
                int g = group[links.get(l).from()];
                if (g >= 0 && lastTo[g] != d.id()) {
                    lastTo[g] = d.id();
                    toGpus[g]++;
                }
            }
        }
        for (int g = 0; g < groups; g++) {
            if (fromGpus[g] == gpus && toGpus[g] == gpus) {
                return true;
            }
        }
        return false;
    }

    /**
     * Strongly connected groups of forwarding devices, over the links between them (Kosaraju's two
     * depth-first passes); -1 for the devices that do not forward.
     */
    private int[] forwardingGroups(int[][] out, int[][] in) {
        int n = devices.size();
        boolean[] forwards = new boolean[n];
        for (Device d : devices) {
            forwards[d.id()] = d.kind().forwards();
        }
        // First pass: forwarding devices in the order their searches finish.
        int[] finished = new int[n];
        int finishedCount = 0;
        boolean[] seen = new boolean[n];
        int[] stack = new int[n];
        int[] nextLink = new int[n];
        for (int start = 0; start < n; start++) {
            if (!forwards[start] || seen[start]) {
                continue;
            }
            int depth = 0;
            stack[0] = start;
            nextLink[0] = 0;
            seen[start] = true;
            while (depth >= 0) {
                int d = stack[depth];
                if (nextLink[depth] < out[d].length) {
                    int next = links.get(out[d][nextLink[depth]++]).to();
                    if (forwards[next] && !seen[next]) {
                        seen[next] = true;
                        stack[++depth] = next;
                        nextLink[depth] = 0;
                    }
                } else {
                    finished[finishedCount++] = d;
                    depth--;
                }
            }
        }
        // Second pass, against the links, latest finished first: what each search reaches is one group.
        int[] group = new int[n];
        Arrays.fill(group, -1);
        int groups = 0;
        for (int i = finishedCount - 1; i >= 0; i--) {
            int root = finished[i];
            if (group[root] >= 0) {
                continue;
            }
            int top = 0;
            stack[0] = root;
            group[root] = groups;
            while (top >= 0) {
                int d = stack[top--];
                for (int l : in[d]) {
                    int prev = links.get(l).from();
                    if (forwards[prev] && group[prev] < 0) {
                        group[prev] = groups;
                        stack[++top] = prev;
                    }
                }
            }
            groups++;
        }
        return group;
    }

    /** The ids of the links leaving each device, or with {@code incoming} entering it. */
    private int[][] linksOf(boolean incoming) {
        int n = devices.size();
        int[] count = new int[n];
        for (Link l : links) {
            count[incoming ? l.to() : l.from()]++;
        }
        int[][] byDevice = new int[n][];
        for (int d = 0; d < n; d++) {
            byDevice[d] = new int[count[d]];
            count[d] = 0;
        }
        for (Link l : links) {
            int d = incoming ? l.to() : l.from();
            byDevice[d][count[d]++] = l.id();
        }
        return byDevice;
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
