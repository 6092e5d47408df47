package dev.collsim.scenarios.stochastic;

import dev.collsim.core.collective.Outage;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;
import umontreal.ssj.probdist.LognormalDist;
import umontreal.ssj.randvar.UniformIntGen;
import umontreal.ssj.rng.MRG32k3a;
import umontreal.ssj.rng.RandomStream;

/**
 * What varies between replications of a stochastic run, each source drawing from its own SSJ
 * MRG32k3a stream, one substream per replication: so a seed gives the same draws whatever else
 * changes, and a source turned on or off does not shift the others.
 *
 * <ul>
 *   <li>kernel-launch jitter: every launch latency times a lognormal factor of mean 1 and the given
 *       coefficient of variation;</li>
 *   <li>step jitter: every point-to-point step's latency (route and notification) likewise, drawn per transfer;</li>
 *   <li>a straggler: one GPU, named or drawn uniformly per replication, whose kernels run {@code factor} times slower;</li>
 *   <li>an outage (bench): one connection, named or a NIC's drawn per replication, down for a time.</li>
 * </ul>
 */
public final class Variability {
    /**
     * @param launchCv        coefficient of variation of launch latencies (0: none)
     * @param stepCv          coefficient of variation of step latencies (0: none)
     * @param stragglerFactor how much slower the straggler's kernels run (1: no straggler)
     * @param stragglerGpu    the straggler, or -1 to draw one per replication
     * @param outage          the connection that goes down ({@code A:B}, or {@code random-nic} for a NIC's
     *                        link to its switch drawn per replication), or null for none
     * @param outageStartPicos  when it goes down, from the start of each collective
     * @param outageDurationPicos for how long
     */
    public record Spec(double launchCv, double stepCv, double stragglerFactor, int stragglerGpu, String outage, long outageStartPicos,
                       long outageDurationPicos) {
        public static final Spec NONE = new Spec(0, 0, 1, -1);
        public static final String RANDOM_NIC = "random-nic";

        public Spec(double launchCv, double stepCv, double stragglerFactor, int stragglerGpu) {
            this(launchCv, stepCv, stragglerFactor, stragglerGpu, null, 0, 0);
        }

        public Spec {
            check("--launch-jitter", launchCv);
            check("--step-jitter", stepCv);
            if (!(stragglerFactor >= 1) || Double.isInfinite(stragglerFactor)) {
                throw new InputException("--straggler " + stragglerFactor + ": expected a slowdown factor of at least 1, e.g. 1.5");
            }
        }

        private static void check(String flag, double cv) {
            if (!(cv >= 0) || cv > 10) {
                throw new InputException(flag + " " + cv + ": expected a coefficient of variation from 0 to 10");
            }
        }

        public boolean stochastic() {
            return launchCv > 0 || stepCv > 0 || stragglerFactor > 1 || outage != null;
        }
    }

    private final Spec spec;
    private final RandomStream launch;
    private final RandomStream step;
    private final RandomStream straggler;
    private final RandomStream outage;

    public Variability(Spec spec, long seed) {
        this.spec = spec;
        MRG32k3a[] streams = Mrg32k3aStreams.fromSeed(seed, 4);
        launch = streams[0];
        step = streams[1];
        straggler = streams[2];
        outage = streams[3];
    }

    public Spec spec() {
        return spec;
    }

    /** Moves every source to its next substream: call once before each replication. */
    public void nextReplication() {
        launch.resetNextSubstream();
        step.resetNextSubstream();
        straggler.resetNextSubstream();
        outage.resetNextSubstream();
    }

    /** This replication's outage on the communicator's fabric, or null when there is none. */
    public Outage outage(Communicator comm) {
        if (spec.outage() == null) {
            return null;
        }
        int[] links;
        if (spec.outage().equals(Spec.RANDOM_NIC)) {
            var fabric = comm.fabric();
            List<int[]> nics = new ArrayList<>();
            for (var d : fabric.devicesOfKind(DeviceKind.NIC)) {
                for (int l : fabric.outLinks(d.id())) {
                    var peer = fabric.device(fabric.link(l).to());
                    if (peer.kind() == DeviceKind.NETWORK_SWITCH) {
                        nics.add(comm.connection(d.name(), peer.name()));
                    }
                }
            }
            if (nics.isEmpty()) {
                throw new InputException("--outage random-nic: " + comm.name() + " has no NIC (one node?)");
            }
            links = nics.get(UniformIntGen.nextInt(outage, 0, nics.size() - 1));
        } else {
            String[] ends = spec.outage().split(":", -1);
            links = ends.length == 2 ? comm.connection(ends[0], ends[1]) : new int[0];
            if (links.length == 0) {
                throw new InputException("--outage " + spec.outage() + ": no connection joins these devices (bench --links names them)");
            }
        }
        return new Outage(links, spec.outageStartPicos(), spec.outageDurationPicos());
    }

    /** A launch latency's factor. */
    public double launchFactor() {
        return lognormal(launch, spec.launchCv());
    }

    /** Factors for step latencies, one per call, or null when steps do not vary. */
    public DoubleSupplier stepJitter() {
        return spec.stepCv() > 0 ? () -> lognormal(step, spec.stepCv()) : null;
    }

    /** This replication's straggler among {@code gpus} GPUs, or -1 when there is none. */
    public int straggler(int gpus) {
        if (spec.stragglerFactor() <= 1) {
            return -1;
        }
        if (spec.stragglerGpu() >= 0) {
            if (spec.stragglerGpu() >= gpus) {
                throw new InputException("--straggler ..@" + spec.stragglerGpu() + ": there are only " + gpus + " GPUs (0 to " + (gpus - 1) + ")");
            }
            return spec.stragglerGpu();
        }
        return UniformIntGen.nextInt(straggler, 0, gpus - 1);
    }

    private static double lognormal(RandomStream s, double cv) {
        if (cv == 0) {
            return 1;
        }
        double sigma2 = Math.log(1 + cv * cv);
        return LognormalDist.inverseF(-sigma2 / 2, Math.sqrt(sigma2), s.nextDouble());
    }
}
