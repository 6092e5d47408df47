package dev.collsim.core.collective;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * A schedule whose channels each run one step over and over, as NCCL's kernels loop over a
 * channel's data a step at a time: it holds that step's transfers once, as a schedule of their own,
 * and works out every other step's from the transfer's number. At 16,384 GPUs a gibibyte's
 * all_reduce takes some 200 million transfers; held one by one they would need about 30 GB.
 *
 * <p>Transfers are numbered channel by channel, step by step, and within a step in the order of
 * the step's transfers: as a {@link ScheduleBuilder} adding them in that order would number them.
 *
 * <p>Each transfer of the step is a stream of its own (a connection, or a warp group of the channel
 * on a rank), as {@link Streams} makes them: besides the step's own dependencies, it waits until the
 * same transfer of the previous step has left its sender, and for the one {@link Protocol#STEPS}
 * steps earlier to be delivered, its buffer slot being needed again.
 *
 * <p>The step's transfers name its pieces 0..k-1: in step s of a channel they are the channel's
 * pieces {@code first + s k} to {@code first + s k + k - 1}. A transfer marked step-wide moves the
 * whole step's bytes rather than its piece's (a rank's copy of the step, which the tracker follows
 * through the rank's own piece).
 */
final class SteppedSchedule extends Schedule {
    /**
     * One step of a channel, shared by every channel that runs it: its transfers as a schedule of
     * their own, which of them move the whole step, and how many dependencies each has inside it.
     */
    static final class Step {
        private final Schedule transfers;
        private final boolean[] stepWide;
        private final int[] predecessors;

        /** @param stepWide per transfer, whether it moves the whole step's bytes rather than its piece's */
        Step(Schedule transfers, boolean[] stepWide) {
            if (transfers.transferCount() == 0 || stepWide.length != transfers.transferCount()) {
                throw new IllegalArgumentException("a step of " + transfers.transferCount() + " transfers, "
                        + stepWide.length + " marked");
            }
            this.transfers = transfers;
            this.stepWide = stepWide.clone();
            this.predecessors = new int[transfers.transferCount()];
            transfers.countPredecessors(predecessors);
        }

        /** The step's transfers, as a schedule of their own. */
        Schedule transfers() {
            return transfers;
        }
    }

    /** One channel: transfers {@code first..first + steps * size - 1}, {@code size} a step. */
    private record Run(int first, int size, int channel, int steps, Schedule step, int[] predecessors,
                       boolean[] stepWide, int firstPiece, long[] stepBytes) {}

    private final Run[] runs;
    private final int n;
    /** The run each block of {@code 1 << blockShift} transfers starts in; no run is shorter than a block. */
    private final int[] blockRun;
    private final int blockShift;
    private final int maxSuccessors;

    private SteppedSchedule(CollectiveRequest request, String algorithm, PieceTable pieces, List<Run> runs, int n) {
        super(request, algorithm, pieces);
        this.runs = runs.toArray(new Run[0]);
        this.n = n;
        int shortest = runs.stream().mapToInt(r -> r.size).min().orElse(1);
        this.blockShift = 31 - Integer.numberOfLeadingZeros(shortest);
        this.blockRun = new int[(n >>> blockShift) + 1];
        for (int r = 0, b = 0; b < blockRun.length; b++) {
            while (r + 1 < this.runs.length && (long) b << blockShift >= this.runs[r + 1].first) {
                r++;
            }
            blockRun[b] = r;
        }
        this.maxSuccessors = runs.stream().mapToInt(r -> r.step.maxSuccessors()).max().orElse(0) + 2;
    }

    private Run runOf(int t) {
        int r = blockRun[t >>> blockShift];
        return r + 1 < runs.length && t >= runs[r + 1].first ? runs[r + 1] : runs[r];
    }

    /** The transfer's place in its channel's step. */
    private static int offset(Run run, int t) {
        return (t - run.first) % run.size;
    }

    @Override
    public int transferCount() {
        return n;
    }

    @Override
    public int src(int t) {
        Run run = runOf(t);
        return run.step.src(offset(run, t));
    }

    @Override
    public int dst(int t) {
        Run run = runOf(t);
        return run.step.dst(offset(run, t));
    }

    @Override
    public int channel(int t) {
        return runOf(t).channel;
    }

    @Override
    public int step(int t) {
        Run run = runOf(t);
        return (t - run.first) / run.size;
    }

    @Override
    public int piece(int t) {
        Run run = runOf(t);
        int s = (t - run.first) / run.size;
        return run.firstPiece + s * run.step.pieceCount() + run.step.piece(t - run.first - s * run.size);
    }

    @Override
    public long bytes(int t) {
        Run run = runOf(t);
        int s = (t - run.first) / run.size;
        int o = t - run.first - s * run.size;
        return run.stepWide[o] ? run.stepBytes[s] : pieceLength(run.firstPiece + s * run.step.pieceCount() + run.step.piece(o));
    }

    @Override
    public boolean reduces(int t) {
        Run run = runOf(t);
        return run.step.reduces(offset(run, t));
    }

    @Override
    public TransferKind kind(int t) {
        Run run = runOf(t);
        return run.step.kind(offset(run, t));
    }

    @Override
    public long dependencyCount() {
        long count = 0;
        for (Run run : runs) {
            count += run.steps * run.step.dependencyCount() + streamDependencies(run);
        }
        return count;
    }

    /** The dependencies each transfer of a run has on the same transfer of earlier steps. */
    private static long streamDependencies(Run run) {
        return Streams.dependencies(run.size, run.steps);
    }

    @Override
    public int maxSuccessors() {
        return maxSuccessors;
    }

    @Override
    public int successors(int t, int[] into) {
        Run run = runOf(t);
        int s = (t - run.first) / run.size;
        int base = run.first + s * run.size;
        int count = run.step.successors(t - base, into);
        for (int i = 0; i < count; i++) {
            into[i] += base << 1;
        }
        // In the order a builder would have added them: the same transfer of the next step waits
        // for t's send, the one STEPS steps on for its delivery.
        if (s + 1 < run.steps) {
            into[count++] = (t + run.size) << 1;
        }
        if (s + Protocol.STEPS < run.steps) {
            into[count++] = (t + Protocol.STEPS * run.size) << 1 | 1;
        }
        return count;
    }

    @Override
    public void countPredecessors(int[] counts) {
        for (Run run : runs) {
            for (int s = 0; s < run.steps; s++) {
                int earlier = (s >= 1 ? 1 : 0) + (s >= Protocol.STEPS ? 1 : 0);
                int base = run.first + s * run.size;
                for (int o = 0; o < run.size; o++) {
                    counts[base + o] += run.predecessors[o] + earlier;
                }
            }
        }
    }

    @Override
    public IntStream representatives() {
        IntStream all = IntStream.empty();
        for (Run run : runs) {
            all = IntStream.concat(all, IntStream.range(run.first, run.first + run.size));
        }
        return all;
    }

    /**
     * One orbit of this schedule under a turn of the ranks of order {@code order}, if every step is
     * the same under it (see {@link TransferTurn}) and every piece of every step is as long as the
     * piece it turns into: each channel runs its step's orbit, its pieces numbered as here.
     */
    Optional<FoldedSchedule> folded(int[] turn, int order) {
        Map<Schedule, Step> foldedSteps = new IdentityHashMap<>();
        List<Run> foldedRuns = new ArrayList<>();
        int first = 0;
        for (Run run : runs) {
            Step folded = foldedSteps.get(run.step);
            if (folded == null) {
                Optional<TransferTurn> turned = TransferTurn.of(run.step, turn);
                Optional<Step> step = turned.filter(tt -> piecesAlike(run, tt)).flatMap(tt -> tt.foldStep(run.step, order, run.stepWide));
                if (step.isEmpty()) {
                    return Optional.empty();
                }
                folded = step.get();
                foldedSteps.put(run.step, folded);
            } else if (!piecesAlike(run, TransferTurn.of(run.step, turn).orElseThrow())) {
                return Optional.empty();
            }
            int size = folded.transfers.transferCount();
            foldedRuns.add(new Run(first, size, run.channel, run.steps, folded.transfers, folded.predecessors, folded.stepWide,
                    run.firstPiece, run.stepBytes));
            first += run.steps * size;
        }
        PieceTable pieces = new PieceTable();
        for (int p = 0; p < pieceCount(); p++) {
            pieces.add(pieceOffset(p), pieceLength(p), pieceSegment(p), pieceDest(p));
        }
        return Optional.of(new FoldedSchedule(new SteppedSchedule(request(), algorithm(), pieces, foldedRuns, first), turn,
                order));
    }

    /** Whether in every step of a run each piece is as long as the one the turn makes of it. */
    private boolean piecesAlike(Run run, TransferTurn turned) {
        int k = run.step.pieceCount();
        for (int s = 0; s < run.steps; s++) {
            int base = run.firstPiece + s * k;
            for (int p = 0; p < k; p++) {
                int q = turned.pieceImage(p);
                if (q >= 0 && pieceLength(base + p) != pieceLength(base + q)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Collects the channels and their pieces. */
    static final class Builder {
        private final CollectiveRequest request;
        private final String algorithm;
        private final PieceTable pieces = new PieceTable();
        private final List<Run> runs = new ArrayList<>();
        private long transfers;

        Builder(CollectiveRequest request, String algorithm) {
            this.request = request;
            this.algorithm = algorithm;
        }

        /** Registers a byte range of the logical buffer that no one rank owns, and returns its number. */
        int piece(long offset, long length) {
            return pieces.add(offset, length, -1, -1);
        }

        /** The pieces registered so far: the number the next one gets. */
        int pieceCount() {
            return pieces.count();
        }

        /**
         * Adds a channel that runs {@code step} once for each entry of {@code stepBytes} (the bytes
         * each step moves); its pieces were registered from {@code firstPiece} on, step by step.
         */
        void channel(int channel, Step step, int firstPiece, long[] stepBytes) {
            int size = step.transfers.transferCount();
            int steps = stepBytes.length;
            if (steps == 0) {
                throw new IllegalArgumentException("channel " + channel + " has no steps");
            }
            if (firstPiece + (long) steps * step.transfers.pieceCount() > pieces.count()) {
                throw new IllegalArgumentException("channel " + channel + " moves pieces it has not registered");
            }
            if (transfers + (long) steps * size >= MAX_TRANSFERS) {
                throw tooLarge(request);
            }
            runs.add(new Run((int) transfers, size, channel, steps, step.transfers, step.predecessors, step.stepWide,
                    firstPiece, stepBytes.clone()));
            transfers += (long) steps * size;
        }

        SteppedSchedule build() {
            return new SteppedSchedule(request, algorithm, pieces, runs, (int) transfers);
        }
    }
}
