package dev.collsim.scenarios.explain;

import dev.collsim.core.collective.CollectiveRequest;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.fabric.Route;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclAlgo;
import dev.collsim.core.nccl.NcclArch;
import dev.collsim.core.nccl.NcclTuner;
import java.util.Set;
import java.util.TreeSet;

/**
 * A collective's textbook alpha-beta time on a communicator: the algorithm's own shape
 * ({@link AlgorithmId#alphaBeta}) with NCCL's latencies for it and the rates of the links that carry
 * it, read from the fabric: one GPU's link to another GPU of its node (beta; on a mesh, where a GPU has a link to
 * each other GPU and the rings take them all, those links together), and across nodes one
 * NIC's rate times the NICs a node's GPUs use (beta_node, each GPU on its own rail).
 *
 * @param shape     the algorithm's formula and what it counts
 * @param algo      the algorithm whose latencies NCCL's tables give
 * @param alpha     NCCL's latency of one step inside a node (us)
 * @param alphaNet  its latency of one step across nodes (us)
 * @param beta      a GPU's link to the others of its node per direction (bytes per us), 0 with one GPU a node
 * @param gpuLink   that link's class, e.g. "NVLink4 x18"
 * @param nicRate   one NIC's rate per direction (bytes per us), 0 on one node
 * @param nics      the NICs one node's GPUs send through
 * @param nicLink   the NIC link's class
 */
public record Textbook(AlgorithmId.AlphaBeta shape, NcclAlgo algo, double alpha, double alphaNet, double beta, String gpuLink,
                       double nicRate, int nics, String nicLink) {

    public static Textbook of(Communicator comm, AlgorithmId algorithm, CollectiveRequest req) {
        NcclAlgo algo = algorithm.nccl() == null ? NcclAlgo.RING : algorithm.nccl();
        int nodes = comm.nNodes();
        int p = comm.nRanks() / nodes;
        Fabric fabric = comm.fabric();
        int[] gpu = comm.placement().devices();
        int[][] node = comm.nodeRanks();
        double beta = 0;
        String gpuLink = "";
        if (p > 1) {
            Link l = slowest(fabric, fabric.router().route(gpu[node[0][0]], gpu[node[0][1]]));
            beta = l.rate().bytesPerSecond() / 1e6;
            gpuLink = l.linkClass();
            double mesh = meshRate(fabric, gpu, node[0]);
            if (mesh > 0 && p > 2) {
                // A mesh: a link to each other GPU, and the rings (or all-pairs) keep every one of them busy.
                beta = mesh;
                gpuLink = l.linkClass() + " x" + (p - 1) + ", one to each other GPU";
            }
        } else if (nodes == 1) {
            // One rank: its link to wherever it goes first, for the copy's bandwidth term.
            Link l = fabric.link(fabric.outLinks(gpu[0])[0]);
            beta = l.rate().bytesPerSecond() / 1e6;
            gpuLink = l.linkClass();
        }
        double nicRate = 0;
        String nicLink = "";
        Set<Integer> nicDevices = new TreeSet<>();
        if (nodes > 1) {
            Link slowest = null;
            for (int j = 0; j < p; j++) {
                Route r = fabric.router().route(gpu[node[0][j]], gpu[node[1][j]]);
                // The sender's NIC: the first the route leaves from.
                for (int id : r.links()) {
                    Link l = fabric.link(id);
                    if (fabric.device(l.from()).kind() == DeviceKind.NIC) {
                        nicDevices.add(l.from());
                        if (slowest == null || l.rate().bytesPerSecond() < slowest.rate().bytesPerSecond()) {
                            slowest = l;
                        }
                        break;
                    }
                }
            }
            if (slowest == null) {
                slowest = slowest(fabric, fabric.router().route(gpu[node[0][0]], gpu[node[1][0]]));
                nicDevices.add(slowest.from());
            }
            nicRate = slowest.rate().bytesPerSecond() / 1e6;
            nicLink = slowest.linkClass();
        }
        NcclArch arch = comm.nccl().arch();
        return new Textbook(algorithm.alphaBeta(req, comm), algo, NcclTuner.hwLatencyMicros(arch, comm.nccl().intraLink(), algo, req.protocol()),
                NcclTuner.hwLatencyMicros(arch, LinkType.NET, algo, req.protocol()), beta, gpuLink, nicRate, nicDevices.size(), nicLink);
    }

    /** The first GPU's links to the other GPUs of its node added up where each is a direct link of its own, else 0. */
    private static double meshRate(Fabric fabric, int[] gpu, int[] ranks) {
        double sum = 0;
        for (int j = 1; j < ranks.length; j++) {
            int[] links = fabric.router().route(gpu[ranks[0]], gpu[ranks[j]]).links();
            if (links.length != 1) {
                return 0;
            }
            sum += fabric.link(links[0]).rate().bytesPerSecond() / 1e6;
        }
        return sum;
    }

    private static Link slowest(Fabric fabric, Route r) {
        Link min = null;
        for (int id : r.links()) {
            Link l = fabric.link(id);
            if (min == null || l.rate().bytesPerSecond() < min.rate().bytesPerSecond()) {
                min = l;
            }
        }
        return min;
    }

    /** One node's NICs together, per direction (bytes per us). */
    public double betaNode() {
        return nicRate * nics;
    }

    /** The latency part (us). */
    public double latencyMicros() {
        return shape.intraSteps() * alpha + shape.netSteps() * alphaNet;
    }

    /** The bandwidth term over one GPU's link (us). */
    public double gpuMicros() {
        return shape.gpuBytes() == 0 || beta == 0 ? 0 : shape.gpuBytes() / (beta * shape.gpuEfficiency());
    }

    /** The bandwidth term through one node's NICs (us). */
    public double nodeMicros() {
        return shape.nodeBytes() == 0 || nics == 0 ? 0 : shape.nodeBytes() / (betaNode() * shape.nicEfficiency());
    }

    /** True where the NICs, not the GPU's link, bound the time. */
    public boolean nicBound() {
        return nodeMicros() > gpuMicros();
    }

    /** The textbook time (us). */
    public double micros() {
        return latencyMicros() + Math.max(gpuMicros(), nodeMicros());
    }
}
