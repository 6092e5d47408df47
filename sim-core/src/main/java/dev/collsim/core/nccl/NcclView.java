package dev.collsim.core.nccl;

import dev.collsim.core.input.InputException;
import java.util.Arrays;

/**
 * What NCCL makes of a set of ranks: the GPU generation, the link type inside a node, which node
 * (NVLink domain) each rank is on, and the graphs its searches find, as the release it runs finds them.
 *
 * @param rankNodes          the node of each rank, numbered from 0
 * @param ringOrders         the rings, one per channel and repeated over the channels (rank order on one
 *                           node; rail-aligned across nodes)
 * @param nvlsGraph          NCCL's NVLS graph, or null where NVLS cannot run (or is turned off)
 * @param latencyInterMicros the network plugin's extra latency per network step, for the tuner
 * @param version            the NCCL release whose searches and tuner these are
 * @param searched           what the searches were given, to search again for another release
 */
public record NcclView(NcclArch arch, LinkType intraLink, int[] rankNodes, int[][] ringOrders, RingGraph ring,
                       NvlsGraph nvlsGraph, double latencyInterMicros, NcclVersion version, SearchInputs searched) {
    public NcclView {
        rankNodes = rankNodes.clone();
        ringOrders = Arrays.stream(ringOrders).map(int[]::clone).toArray(int[][]::new);
    }

    /**
     * What NCCL's searches see of a GPU: the bandwidth it has inside its node ({@code intraGBps}), its
     * NVLink bandwidth ({@code nvlinkGBps}), its NICs' ({@code nicGBps}, in NCCL's own units: a
     * 400 Gb/s NIC is 50), and whether an NVSwitch that reduces joins the node ({@code nvls}).
     *
     * @param nodeRings on a node of point-to-point links, its rings, each over links of its own (channel c runs ring {@code
     *                  c % nodeRings.length}); across such nodes, each ring's way through a node, in local GPU numbers
     *                  ({@link #meshRingOrders}); the tree's chains follow them too. Null where every ring may take rank
     *                  order (a switch)
     */
    public record SearchInputs(double intraGBps, double nvlinkGBps, double nicGBps, boolean nvls, int[][] nodeRings) {
        public SearchInputs(double intraGBps, double nvlinkGBps, double nicGBps, boolean nvls) {
            this(intraGBps, nvlinkGBps, nicGBps, nvls, null);
        }
    }

    /**
     * The newest release's searches on ranks numbered node by node, {@code rankNodes.length / nodes} a
     * node: the ring graph inside the node or, across nodes, from the NICs; the NVLS graph where the
     * switch can reduce; rail-aligned rings.
     */
    public static NcclView search(NcclArch arch, LinkType intraLink, int[] rankNodes, SearchInputs in, double latencyInterMicros) {
        return search(arch, intraLink, rankNodes, in, latencyInterMicros, NcclVersion.NEWEST);
    }

    private static NcclView search(NcclArch arch, LinkType intraLink, int[] rankNodes, SearchInputs in, double latencyInterMicros,
                                   NcclVersion version) {
        int nodes = Arrays.stream(rankNodes).max().orElse(0) + 1;
        int perNode = rankNodes.length / nodes;
        RingGraph ring = nodes == 1 && arch.rccl() && in.nodeRings() != null ? meshRings(arch, version, in.intraGBps(), perNode)
                : nodes == 1 ? RingGraph.search(arch, version, in.intraGBps())
                : arch.rccl() ? RingGraph.rcclAcrossNodes(arch.rcclTuning(), in.nvlinkGBps()) : RingGraph.searchInter(arch, version, in.nicGBps(), perNode);
        NvlsGraph nvlsGraph = !in.nvls() ? null : nodes == 1
                ? NvlsGraph.search(arch, version, in.nvlinkGBps(), perNode)
                : NvlsGraph.searchAcrossNodes(arch, version, in.nvlinkGBps(), perNode, in.nicGBps());
        int[][] orders = in.nodeRings() != null ? meshRingOrders(nodes, perNode, in.nodeRings()) : ringOrders(nodes, perNode);
        return new NcclView(arch, intraLink, rankNodes, orders, ring, nvlsGraph, latencyInterMicros, version, in);
    }

    /** RCCL's rings over one xGMI mesh: the search's, run on the channels RCCL copies them to ({@link RcclTuning#meshChannels}). */
    private static RingGraph meshRings(NcclArch arch, NcclVersion version, double intraGBps, int ranks) {
        RingGraph searched = RingGraph.search(arch, version, intraGBps);
        return searched.runOn(arch.rcclTuning().meshChannels(ranks, searched.channels()));
    }

    /**
     * The same ranks as another NCCL release sees them: its searches run again on the same inputs
     * (NVLS stays off if it was). Throws a one-line error naming {@code flag} where the release
     * predates the GPUs.
     */
    public NcclView asRunBy(NcclVersion other, String flag) {
        other.requireSupports(arch, flag);
        if (other == version) {
            return this;
        }
        if (arch.rccl()) {
            throw new InputException(flag + " " + other.minor() + ": AMD Instinct GPUs run RCCL, whose releases are not modelled apart;"
                    + " leave out " + flag);
        }
        SearchInputs in = nvlsGraph == null ? new SearchInputs(searched.intraGBps(), searched.nvlinkGBps(), searched.nicGBps(), false,
                searched.nodeRings()) : searched;
        return search(arch, intraLink, rankNodes, in, latencyInterMicros, other);
    }

    /**
     * One ring per rail: channel c's ring visits node 0 starting at GPU c and ending at GPU c-1, then
     * node 1 backwards from GPU c-1 to GPU c, and so on, so that every hop between nodes stays on one
     * rail (with an odd node count the hop back to node 0 changes rails once).
     */
    public static int[][] ringOrders(int nodes, int gpusPerNode) {
        int[][] orders = new int[gpusPerNode][nodes * gpusPerNode];
        for (int c = 0; c < gpusPerNode; c++) {
            int p = 0;
            for (int k = 0; k < nodes; k++) {
                for (int j = 0; j < gpusPerNode; j++) {
                    int local = k % 2 == 0 ? (c + j) % gpusPerNode : Math.floorMod(c - 1 - j, gpusPerNode);
                    orders[c][p++] = k * gpusPerNode + local;
                }
            }
            if (nodes == 1) {
                Arrays.setAll(orders[c], i -> i);
            }
        }
        return orders;
    }

    /**
     * Rings over nodes of point-to-point meshes. On one node, {@code nodeRings} themselves. Across nodes {@code nodeRings}
     * are the ways through a node (entering by the first GPU's NIC, leaving by the last's): ring i runs way i forward on
     * even nodes and backward on odd ones, as RCCL's topology models have odd hosts reverse their rings, so that every hop
     * between nodes stays on one rail (with an odd node count the hop back to node 0 changes rails once).
     */
    static int[][] meshRingOrders(int nodes, int gpusPerNode, int[][] nodeRings) {
        if (nodes == 1) {
            return nodeRings;
        }
        int[][] orders = new int[nodeRings.length][nodes * gpusPerNode];
        for (int i = 0; i < nodeRings.length; i++) {
            int p = 0;
            for (int k = 0; k < nodes; k++) {
                for (int j = 0; j < gpusPerNode; j++) {
                    orders[i][p++] = k * gpusPerNode + nodeRings[i][k % 2 == 0 ? j : gpusPerNode - 1 - j];
                }
            }
        }
        return orders;
    }

    public int nRanks() {
        return rankNodes.length;
    }

    public int nNodes() {
        return Arrays.stream(rankNodes).max().orElse(-1) + 1;
    }

    /** The ranks of each node, in rank order. */
    public int[][] nodeRanks() {
        // One pass over the ranks: a scan per node made 8,000 nodes of 8 GPUs half a billion steps.
        int[] count = new int[nNodes()];
        for (int node : rankNodes) {
            count[node]++;
        }
        int[][] out = new int[count.length][];
        for (int k = 0; k < out.length; k++) {
            out[k] = new int[count[k]];
            count[k] = 0;
        }
        for (int r = 0; r < rankNodes.length; r++) {
            out[rankNodes[r]][count[rankNodes[r]]++] = r;
        }
        return out;
    }

    /** The same view with NVLS unavailable. */
    public NcclView withoutNvls() {
        return new NcclView(arch, intraLink, rankNodes, ringOrders, ring, null, latencyInterMicros, version, searched);
    }
}
