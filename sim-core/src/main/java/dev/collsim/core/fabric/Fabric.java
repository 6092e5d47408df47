package dev.collsim.core.fabric;

import dev.collsim.core.input.InputException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An immutable graph of devices and directed links, built and validated by {@link FabricBuilder}.
 * How data finds its way through the graph is a {@link Router}'s business: {@link #router()} gives
 * the one every run on this fabric shares, under NCCL's {@linkplain RoutingPolicy#NCCL policy}.
 */
public final class Fabric {
    private final List<Device> devices;
    private final List<Link> links;
    private final int[][] outLinks;
    private final int[][] inLinks;
    /** Made on first use; shared, with its route cache, by every run on this fabric. */
    private volatile Router router;

    Fabric(List<Device> devices, List<Link> links) {
        this.devices = List.copyOf(devices);
        this.links = List.copyOf(links);
        outLinks = linksBy(devices.size(), links, false);
        inLinks = linksBy(devices.size(), links, true);
    }

    /** The routes of this fabric under NCCL's policy (ECMP across network switches, PXN relays), cached. */
    public Router router() {
        Router r = router;
        if (r == null) {
            synchronized (this) {
                r = router;
                if (r == null) {
                    r = new Router(this, RoutingPolicy.NCCL);
                    router = r;
                }
            }
        }
        return r;
    }

    /** The routes of this fabric under another policy: a router of its own, with its own cache. */
    public Router router(RoutingPolicy policy) {
        return policy.equals(RoutingPolicy.NCCL) ? router() : new Router(this, policy);
    }

    public List<Device> devices() {
        return devices;
    }

    public List<Link> links() {
        return links;
    }

    public Device device(int id) {
        return devices.get(id);
    }

    public Link link(int id) {
        return links.get(id);
    }

    /** Ids of the links leaving {@code device}, in increasing order. */
    public int[] outLinks(int device) {
        return outLinks[device].clone();
    }

    /** The links leaving each device, by device id, for the router to search without copies. */
    int[][] linksLeaving() {
        return outLinks;
    }

    /** The links entering each device, by device id. */
    int[][] linksEntering() {
        return inLinks;
    }

    /**
     * This fabric with some connections degraded or taken down; device ids stay, link ids may not.
     *
     * @throws InputException if an edit names an unknown device or a pair with no link between them,
     *                        or if what is left no longer joins every GPU
     */
    public Fabric withEdits(List<LinkEdit> given) {
        if (given.isEmpty()) {
            return this;
        }
        Map<String, Integer> ids = new HashMap<>();
        devices.forEach(d -> ids.put(d.name(), d.id()));
        List<LinkEdit> edits = given.stream().map(e -> new LinkEdit(named(e.a(), ids), named(e.b(), ids), e.factor())).toList();
        for (LinkEdit e : edits) {
            for (String name : List.of(e.a(), e.b())) {
                if (!ids.containsKey(name)) {
                    throw new InputException("link " + e.a() + ":" + e.b() + ": no device '" + name
                            + "' (bench --links and topo show name the devices)");
                }
            }
            if (links.stream().noneMatch(l -> e.joins(devices.get(l.from()).name(), devices.get(l.to()).name()))) {
                throw new InputException("link " + e.a() + ":" + e.b() + ": no link joins these two devices");
            }
        }
        FabricBuilder b = new FabricBuilder();
        devices.forEach(d -> b.addDevice(d.name(), d.kind(), d.capabilities()));
        for (Link l : links) {
            double factor = 1;
            for (LinkEdit e : edits) {
                if (e.joins(devices.get(l.from()).name(), devices.get(l.to()).name())) {
                    factor *= e.factor();
                }
            }
            if (factor > 0) {
                b.addLink(l.from(), l.to(), l.rate().times(factor), l.latency(), l.linkClass(), l.technology(), l.lanes());
            }
        }
        try {
            return b.build();
        } catch (InputException e) {
            throw new InputException("with " + edits.stream().filter(LinkEdit::isDown).map(LinkEdit::toString)
                    .collect(Collectors.joining(", ")) + ": " + e.getMessage());
        }
    }

    /**
     * A device's name as the fabric has it: node 0's devices may be named {@code n0.X} where the
     * fabric is one node and calls them {@code X}, so that one edit works at any node count.
     */
    private static String named(String name, Map<String, Integer> ids) {
        return !ids.containsKey(name) && name.startsWith("n0.") && ids.containsKey(name.substring(3)) ? name.substring(3) : name;
    }

    /** The devices of one kind, in id order. */
    public List<Device> devicesOfKind(DeviceKind kind) {
        return devices.stream().filter(d -> d.kind() == kind).toList();
    }

    /** The ids of the links leaving each device, or with {@code incoming} entering it, in increasing order. */
    private static int[][] linksBy(int devices, List<Link> links, boolean incoming) {
        int[] count = new int[devices];
        for (Link l : links) {
            count[incoming ? l.to() : l.from()]++;
        }
        int[][] byDevice = new int[devices][];
        for (int d = 0; d < devices; d++) {
            byDevice[d] = new int[count[d]];
            count[d] = 0;
        }
        for (Link l : links) {
            int d = incoming ? l.to() : l.from();
            byDevice[d][count[d]++] = l.id();
        }
        return byDevice;
    }
}
