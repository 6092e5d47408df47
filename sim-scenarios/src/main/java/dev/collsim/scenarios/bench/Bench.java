package dev.collsim.scenarios.bench;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Outage;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Payload;
import dev.collsim.core.nccl.Plan;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;
import java.util.function.DoubleSupplier;

/** The nccl-tests workload: one collective over a sweep of sizes, each simulated chunk by chunk. */
public final class Bench {
    private Bench() {}

    public static Communicator communicator(BenchSpec spec) {
        Communicator comm = spec.topology() != null ? spec.topology().withLinkEdits(spec.whatIf().linkEdits())
                : preset(spec.system(), spec.nodes(), spec.gpusPerNode(), spec.network(), spec.whatIf());
        comm = comm.runBy(spec.nccl(), "--nccl");
        comm = spec.collNet() ? comm : comm.withoutCollNet();
        return spec.nvls() ? comm : comm.withoutNvls();
    }

    /**
     * A preset's system with its what-if knobs and link edits.
     *
     * @param gpusPerNode GPUs of each node to use, or null for all
     * @param network     the network, or null for the preset's default
     */
    public static Communicator preset(String system, int nodes, Integer gpusPerNode, String network, WhatIf whatIf) {
        SystemPreset preset = SystemPreset.byName(system);
        return preset.build(nodes, preset.gpusPerNode(gpusPerNode), network == null ? null : NetworkPreset.byName(network), whatIf)
                .withLinkEdits(whatIf.linkEdits());
    }

    public static List<BenchRow> run(BenchSpec spec) {
        return run(spec, communicator(spec));
    }

    /** The sweep on a communicator already built for the spec (building one can take long on large fabrics). */
    public static List<BenchRow> run(BenchSpec spec, Communicator comm) {
        return run(spec, comm, (done, total) -> { });
    }

    /** As above, telling {@code progress} how many sizes are done (done, total). */
    public static List<BenchRow> run(BenchSpec spec, Communicator comm, BiConsumer<Integer, Integer> progress) {
        List<BenchRow> rows = new ArrayList<>();
        List<Long> sizes = spec.sizes().sizes();
        for (int i = 0; i < sizes.size(); i++) {
            BenchRow row = runOne(spec, comm, sizes.get(i));
            if (row != null) {
                rows.add(row);
            }
            progress.accept(i + 1, sizes.size());
        }
        return rows;
    }

    /** Counted transfers per second this machine manages at weight 1 (2.5 us each). */
    static final double TRANSFERS_PER_SECOND = 4e5;
    /**
     * A ring's transfer against the rate above: measured 1.2 us each (the 1,024-rank ring of 256 MiB,
     * 34 M transfers in 41 s; 8 M at 512 ranks in 9.2 s); 0.6 puts it at 1.5 us.
     */
    static final double RING_WEIGHT = 0.6;
    /**
     * A tree's counted transfer (one protocol step of one rank): 2.4 us at 4,096 GPUs and 256 MiB,
     * 4.5-4.8 us at 16,384 GPUs (64 and 256 MiB; the runs grow with the ranks' depth in the tree);
     * 2.0 puts it at 5 us.
     */
    static final double TREE_WEIGHT = 2.0;
    /**
     * Memory one transfer of a held schedule holds, with its dependencies and the runner's state: 95 B
     * at the peak for the 1,024-rank ring when it was held (34 M transfers, 3.2 GB), 98 B a counted
     * tree transfer at 16,384 GPUs (17 M, 1.66 GB); rounded up (docs/performance.md).
     */
    static final double BYTES_PER_TRANSFER = 110;
    /**
     * Memory per counted transfer of a ring or tree, whose schedules are worked out from transfer
     * numbers and whose runs keep 12 B a transfer: 0.54 GB peak resident for the 1,024-rank ring of
     * 1 GiB (34 M), 2.14 GB for the tree at 16,384 GPUs and 1 GiB (67 M counted); 40 B leaves room
     * for the fixed part and the collector (docs/performance.md).
     */
    static final double BYTES_PER_WORKED_OUT_TRANSFER = 40;
    /**
     * Memory per counted transfer of NVLS, whose counted transfers stand for several (the in-switch
     * operations, the scatter and gather copies), all held: about 380 B each when NVLS-Tree held
     * them too (1.62 GB for 1,024 GPUs at 1 GiB, 4.2 M counted), rounded up to stay on the safe side.
     */
    static final double BYTES_PER_NVLS_TRANSFER = 450;
    /**
     * Memory per counted transfer of NVLS-Tree, whose schedule holds one step per tree and whose
     * run keeps 12 B per transfer: 3.26 GB peak resident for 16,384 GPUs at 1 GiB (67 M counted),
     * 1.21 GB at 256 MiB (17 M), 41 B each at the margin; 60 B leaves room for the fixed part and
     * the collector (docs/performance.md).
     */
    static final double BYTES_PER_NVLS_TREE_TRANSFER = 60;
    /**
     * What a counted NVLS or NVLS-Tree transfer costs against a ring's: each of their in-switch
     * operations starts and ends flows on every GPU of a node. Measured from 1,024 to 16,384 GPUs and
     * 256 MiB to 1 GiB, a counted NVLS-Tree transfer took 2.4-4.4 us; this weight puts it at
     * 4.4 us, the slowest (16,384 GPUs at 1 GiB in a slow hour; docs/performance.md).
     */
    static final double IN_SWITCH_WEIGHT = 1.75;

    /** Above this estimate a run needs --force. */
    static final double LONG_RUN_SECONDS = 300;

    /**
     * About how many transfers the run's schedules hold, and about how long they take here: a ring
     * moves each channel's share in loops of n chunks, 2(n-1) steps of n transfers each (two slices a
     * chunk for Simple); other algorithms move each rank's data in steps of one protocol step. Time:
     * the transfers at {@link #TRANSFERS_PER_SECOND}, weighted by what one costs in each algorithm
     * (measured for the ring, the tree, NVLS and NVLS-Tree; 1 for the rest). Memory: the largest
     * size's schedule.
     */
    record Estimate(double transfers, double seconds, double bytes) {}

    static Estimate estimate(BenchSpec spec, Communicator comm) {
        return estimate(spec, comm, true);
    }

    /**
     * As above; with {@code folds}, a run that folds to one orbit of ranks counts one orbit's
     * transfers (a stochastic run, which draws per transfer, runs whole).
     */
    static Estimate estimate(BenchSpec spec, Communicator comm, boolean folds) {
        double total = 0;
        double weighted = 0;
        double bytesHeld = 0;
        int n = comm.nRanks();
        for (long requested : spec.sizes().sizes()) {
            long bytes = roundedSize(spec, n, requested);
            if (bytes == 0) {
                continue;
            }
            Plan plan = plan(spec, comm, bytes);
            double planned = plan.algo().plannedTransfers(plan, comm) / (folds ? comm.foldOrder(plan) : 1);
            total += planned;
            weighted += planned * weight(plan.algo());
            bytesHeld = Math.max(bytesHeld, planned * bytesPerTransfer(plan.algo()));
        }
        return new Estimate(total, weighted / TRANSFERS_PER_SECOND, bytesHeld);
    }

    /** What a counted transfer of the algorithm costs against {@link #TRANSFERS_PER_SECOND}. */
    static double weight(AlgorithmId algo) {
        return switch (algo) {
            case RING -> RING_WEIGHT;
            case TREE -> TREE_WEIGHT;
            case NVLS, NVLS_TREE -> IN_SWITCH_WEIGHT;
            default -> 1;
        };
    }

    /** The memory a counted transfer of the algorithm holds. */
    static double bytesPerTransfer(AlgorithmId algo) {
        return switch (algo) {
            case NVLS -> BYTES_PER_NVLS_TRANSFER;
            case NVLS_TREE -> BYTES_PER_NVLS_TREE_TRANSFER;
            case RING, TREE -> BYTES_PER_WORKED_OUT_TRANSFER;
            default -> BYTES_PER_TRANSFER;
        };
    }

    /** Bytes nccl-tests moves for a requested size: whole elements, and for all_gather and reduce_scatter a multiple of the ranks. */
    public static long roundedSize(BenchSpec spec, int nRanks, long requestedSize) {
        int elem = spec.type().bytes();
        return spec.op().sizeIsTotal() ? requestedSize / elem / nRanks * elem * nRanks : requestedSize / elem * elem;
    }

    /** Refuses a sweep none of whose sizes holds a whole element (per rank, where the size is the total): it would print nothing. */
    public static void checkSomeSizeRuns(BenchSpec spec, int nRanks) {
        List<Long> sizes = spec.sizes().sizes();
        if (sizes.stream().anyMatch(size -> roundedSize(spec, nRanks, size) > 0)) {
            return;
        }
        long least = (long) spec.type().bytes() * (spec.op().sizeIsTotal() ? nRanks : 1);
        throw new InputException("-b " + sizes.get(0) + " to -e " + sizes.get(sizes.size() - 1)
                + ": no size holds a whole " + spec.type().ncclName() + (spec.op().sizeIsTotal() ? " per rank" : "")
                + "; " + spec.op().ncclName() + " on " + nRanks + " ranks needs at least " + least + " B");
    }

    /** What NCCL would run for one size. */
    public static Plan plan(BenchSpec spec, Communicator comm, long bytes) {
        return NcclPlanner.plan(comm, spec.op(), bytes, spec.root(), spec.algos(), spec.protocols(), spec.channels(), payload(spec));
    }

    /** What the sweep's buffers hold and how they are reduced, as the planner weighs them. */
    static Payload payload(BenchSpec spec) {
        DataType t = spec.type();
        return new Payload(t.bytes(), t == DataType.BFLOAT16, t == DataType.F8E4M3 || t == DataType.F8E5M2, spec.redop() == ReduceOp.AVG);
    }

    /**
     * Refuses a run whose schedules, run {@code runs} times (replications; stochastic ones are not
     * folded), would take longer than
     * {@link #LONG_RUN_SECONDS} to simulate, or one schedule hold more memory than this JVM may use,
     * with the estimate of transfers, time and memory.
     */
    public static void checkNotTooLarge(BenchSpec spec, Communicator comm, int runs, boolean stochastic) {
        Estimate once = estimate(spec, comm, !stochastic);
        long sizes = spec.sizes().count();
        checkNotTooLarge(new Estimate(once.transfers() * runs, once.seconds() * runs, once.bytes()), Runtime.getRuntime().maxMemory(),
                sizes == 1 ? "this run" : String.format(Locale.ROOT, "this run of %,d sizes (%s)", sizes, spec.sizes().describe()));
    }

    static void checkNotTooLarge(Estimate e, long heapBytes) {
        checkNotTooLarge(e, heapBytes, "this run");
    }

    /** Throws, unless --force, where the estimate is too long or too large; {@code what} names the run in the message. */
    static void checkNotTooLarge(Estimate e, long heapBytes, String what) {
        String time = e.seconds() < 90 ? String.format(Locale.ROOT, "%.0f seconds", e.seconds())
                : String.format(Locale.ROOT, "%.0f minutes", e.seconds() / 60);
        String memory = String.format(Locale.ROOT, e.bytes() < 0.95e9 ? "%.1f GB" : "%.0f GB", e.bytes() / 1e9);
        String size = String.format(Locale.ROOT, "%s would simulate about %.0f million transfers:"
                + " roughly %s and %s of memory on a machine like this one", what, e.transfers() / 1e6, time, memory);
        boolean tooLong = e.seconds() > LONG_RUN_SECONDS;
        boolean tooBig = e.bytes() > heapBytes;
        if (!tooLong && !tooBig) {
            return;
        }
        String heap = !tooBig ? "" : String.format(Locale.ROOT, ", more than this Java heap's %.1f GB", heapBytes / 1e9);
        String remedy = !tooBig ? "add --force to run it" : String.format(Locale.ROOT,
                "give it more heap (COLLSIM_JAVA_OPTS=-Xmx%dg) %s", (long) Math.ceil(e.bytes() * 1.25 / (1L << 30)),
                tooLong ? "and add --force to run it" : "or add --force to try");
        throw new InputException(size + heap + "; " + remedy + ", or try fewer --channels, a smaller size or fewer nodes");
    }

    /** One size; null when nccl-tests' rounding leaves no element to move. */
    public static BenchRow runOne(BenchSpec spec, Communicator comm, long requestedSize) {
        return runOne(spec, comm, requestedSize, 1, null, null);
    }

    /**
     * One size of a stochastic replication: the launch latency scaled, step latencies drawn by
     * {@code stepJitter} and links down for a while (each null for none).
     */
    public static BenchRow runOne(BenchSpec spec, Communicator comm, long requestedSize, double launchFactor,
                                  DoubleSupplier stepJitter, Outage outage) {
        CollectiveOp op = spec.op();
        int n = comm.nRanks();
        long bytes = roundedSize(spec, n, requestedSize);
        if (bytes == 0) {
            return null;
        }
        long count = op.sizeIsTotal() ? bytes / spec.type().bytes() / n : bytes / spec.type().bytes();
        int root = op.rooted() ? spec.root() : -1;
        Plan plan = plan(spec, comm, bytes);
        RunResult result = comm.simulate(plan, null, false, launchFactor, stepJitter, outage);
        int channels = plan.request().channels();
        long picos = comm.book().hostLaunch().iterationPicos(result.durationPicos(), spec.gpusPerThread(), channels);
        double micros = picos / 1e6;
        double algBw = bytes / (micros * 1e3);
        String redop = op.reduces() ? spec.redop().ncclName() : "none";
        return new BenchRow(bytes, count, spec.type().ncclName(), redop, root, micros, algBw,
                algBw * op.busBandwidthFactor(n), plan.algo().label(), plan.request().protocol().label(), channels);
    }
}
