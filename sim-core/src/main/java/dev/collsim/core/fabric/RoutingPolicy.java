package dev.collsim.core.fabric;

/**
 * How a {@link Router} chooses among routes that its search finds equally good, and whether a GPU
 * may pass data on. The search itself is fixed: fewest hops through forwarding devices, then the
 * widest.
 *
 * @param equalCost which of several equally short and equally wide routes a pair takes
 * @param relay     whether, where no route through forwarding devices exists, a GPU may relay
 */
public record RoutingPolicy(EqualCost equalCost, GpuRelay relay) {
    /** What NCCL meets on a real cluster: ECMP across the network's switches, PXN on the nodes. */
    public static final RoutingPolicy NCCL = new RoutingPolicy(EqualCost.ECMP, GpuRelay.PXN);

    public RoutingPolicy {
        if (equalCost == null || relay == null) {
            throw new IllegalArgumentException("a routing policy needs an equal-cost choice and a relay rule");
        }
    }

    /** Among equally short and equally wide routes, which one a pair of devices takes. */
    public enum EqualCost {
        /** The one found first, through the lowest link ids. */
        FIRST_FOUND {
            @Override
            boolean replaces(int from, int to, int candidate, DeviceKind candidateSource, int current, DeviceKind currentSource) {
                return false;
            }
        },
        /**
         * Between network switches, the one a hash of the pair's ends picks, as a switch's ECMP picks by
         * a hash of the flow's header: different pairs spread over the spines, and some collide.
         * Elsewhere the first found.
         */
        ECMP {
            @Override
            boolean replaces(int from, int to, int candidate, DeviceKind candidateSource, int current, DeviceKind currentSource) {
                return candidateSource == DeviceKind.NETWORK_SWITCH && currentSource == DeviceKind.NETWORK_SWITCH
                        && flowHash(from, to, candidate) < flowHash(from, to, current);
            }
        };

        /**
         * Whether a route from {@code from} to {@code to} should enter a device by link {@code candidate}
         * (leaving a device of kind {@code candidateSource}) instead of by {@code current}, found first.
         */
        abstract boolean replaces(int from, int to, int candidate, DeviceKind candidateSource, int current, DeviceKind currentSource);

        private static long flowHash(int from, int to, int link) {
            long h = (((long) from << 32) | to) * 0x9E3779B97F4A7C15L + link;
            h ^= h >>> 33;
            h *= 0xFF51AFD7ED558CCDL;
            return (h ^ (h >>> 33)) & Long.MAX_VALUE;
        }
    }

    /** Whether a GPU may pass on data that is not its own, where no route avoids it. */
    public enum GpuRelay {
        /** Never: a GPU is only ever a route's end. */
        NONE {
            @Override
            boolean passes(DeviceKind entered, DeviceKind leaving) {
                return false;
            }
        },
        /**
         * As NCCL's PXN does: between its NVSwitch and its PCIe switch or NIC, either way, so a GPU
         * whose own NIC is gone reaches the network through a peer's.
         */
        PXN {
            @Override
            boolean passes(DeviceKind entered, DeviceKind leaving) {
                boolean pcieSide = leaving == DeviceKind.PCIE_SWITCH || leaving == DeviceKind.NIC;
                return entered == DeviceKind.NVSWITCH ? pcieSide
                        : (entered == DeviceKind.PCIE_SWITCH || entered == DeviceKind.NIC) && leaving == DeviceKind.NVSWITCH;
            }
        };

        /** Whether a GPU that data entered from a device of kind {@code entered} passes it to one of kind {@code leaving}. */
        abstract boolean passes(DeviceKind entered, DeviceKind leaving);
    }
}
