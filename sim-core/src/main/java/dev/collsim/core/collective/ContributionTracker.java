package dev.collsim.core.collective;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * Follows every piece of the buffer symbolically while a schedule runs: each rank holds, per piece,
 * the set of ranks whose input has been reduced into it. A transfer carries what its sender holds
 * when it starts; the receiver adds it (reduce) or takes it (copy). The tracker records as a
 * violation anything a correct collective cannot do: reading data before it is visible, reducing a
 * contribution twice, or ending with a result other than the operation's.
 */
public final class ContributionTracker implements TransferObserver {
    private final Schedule schedule;
    private final int nRanks;
    private final BitSet[][] holds;
    private final long[][] visibleFrom;
    private final int[][] writer;
    private final BitSet[] inFlight;
    private final BitSet[] carried;
    private final List<String> violations = new ArrayList<>();
    private final int[] rankGroup;
    private final int[] sharpGroup;

    /** A tracker for a schedule whose in-switch operations span all its ranks (one NVLink domain). */
    public ContributionTracker(Schedule schedule) {
        this(schedule, new int[schedule.request().nRanks()], null);
    }

    /**
     * @param rankGroup  per rank, the switch whose in-switch operations it takes part in; ranks with
     *                   the same value are reduced and multicast together
     * @param sharpGroup per rank, the SHARP switch its in-network all-reduces go through, or null
     */
    public ContributionTracker(Schedule schedule, int[] rankGroup, int[] sharpGroup) {
        this.schedule = schedule;
        this.rankGroup = rankGroup.clone();
        this.sharpGroup = sharpGroup == null ? null : sharpGroup.clone();
        CollectiveRequest req = schedule.request();
        this.nRanks = req.nRanks();
        int pieces = schedule.pieceCount();
        holds = new BitSet[nRanks][pieces];
        visibleFrom = new long[nRanks][pieces];
        writer = new int[nRanks][pieces];
        inFlight = new BitSet[schedule.transferCount()];
        carried = new BitSet[schedule.transferCount()];
        for (int r = 0; r < nRanks; r++) {
            for (int p = 0; p < pieces; p++) {
                holds[r][p] = initial(req, r, schedule.pieceSegment(p));
            }
        }
    }

    private static BitSet initial(CollectiveRequest req, int rank, int segment) {
        BitSet b = new BitSet();
        boolean has = switch (req.op()) {
            case ALL_REDUCE, REDUCE_SCATTER, REDUCE -> true;
            case ALL_GATHER, ALL_TO_ALL, SEND_RECV -> segment == rank;
            case BROADCAST -> rank == req.root();
        };
        if (has) {
            b.set(rank);
        }
        return b;
    }

    @Override
    public void started(int t, long time) {
        int piece = schedule.piece(t);
        TransferKind kind = schedule.kind(t);
        if (kind == TransferKind.SWITCH_ALLREDUCE || kind == TransferKind.SWITCH_REDUCE || kind == TransferKind.NETWORK_ALLREDUCE) {
            // The switch reads every rank's copy and reduces them: each contribution must come from one rank only.
            int[] groups = groupsOf(kind);
            int group = groups[schedule.anchor(t)];
            BitSet sum = new BitSet();
            for (int r = 0; r < nRanks; r++) {
                if (groups[r] != group) {
                    continue;
                }
                checkVisible(t, r, piece, time);
                if (sum.intersects(holds[r][piece])) {
                    violations.add("transfer " + t + " reduces a contribution of piece " + piece + " twice in the switch");
                }
                sum.or(holds[r][piece]);
            }
            inFlight[t] = sum;
            carried[t] = sum;
            return;
        }
        int src = schedule.src(t);
        checkVisible(t, src, piece, time);
        inFlight[t] = (BitSet) holds[src][piece].clone();
        carried[t] = inFlight[t];
    }

    /** The contributions transfer {@code t} carried (for an in-switch all-reduce: their sum), or null if it never ran. */
    public BitSet carried(int t) {
        return carried[t] == null ? null : (BitSet) carried[t].clone();
    }

    private int[] groupsOf(TransferKind kind) {
        return kind == TransferKind.NETWORK_ALLREDUCE ? sharpGroup : rankGroup;
    }

    private void checkVisible(int t, int rank, int piece, long time) {
        if (visibleFrom[rank][piece] > time) {
            violations.add("transfer " + t + " (" + schedule.kind(t) + ") reads piece " + piece + " on rank " + rank + " at " + time
                    + " ps before transfer " + writer[rank][piece] + " (" + schedule.kind(writer[rank][piece]) + ") delivers it at "
                    + visibleFrom[rank][piece] + " ps");
        }
    }

    @Override
    public void delivered(int t, long time) {
        int piece = schedule.piece(t);
        BitSet payload = inFlight[t];
        inFlight[t] = null;
        if (payload == null) {
            violations.add("transfer " + t + " delivered without having started");
            return;
        }
        if (schedule.dst(t) == Schedule.ALL) {
            int[] groups = groupsOf(schedule.kind(t));
            int group = groups[schedule.src(t)];
            boolean multicast = schedule.kind(t) == TransferKind.SWITCH_MULTICAST;
            for (int r = 0; r < nRanks; r++) {
                // A multicast's sender already holds what it sends; its own copy changes nothing.
                if (groups[r] == group && !(multicast && r == schedule.src(t))) {
                    holds[r][piece] = (BitSet) payload.clone();
                    visibleFrom[r][piece] = Math.max(visibleFrom[r][piece], time);
                    writer[r][piece] = t;
                }
            }
            return;
        }
        if (schedule.kind(t) == TransferKind.SWITCH_REDUCE) {
            // The switch delivers the sum of the head's node, its own input included.
            holds[schedule.dst(t)][piece] = (BitSet) payload.clone();
            visibleFrom[schedule.dst(t)][piece] = Math.max(visibleFrom[schedule.dst(t)][piece], time);
            writer[schedule.dst(t)][piece] = t;
            return;
        }
        int dst = schedule.dst(t);
        if (schedule.kind(t) == TransferKind.LOCAL_COPY) {
            // A copy within one rank moves data between its buffers; what the rank holds, and since when, does not change.
            return;
        }
        if (schedule.reduces(t)) {
            if (holds[dst][piece].intersects(payload)) {
                BitSet twice = (BitSet) holds[dst][piece].clone();
                twice.and(payload);
                violations.add("transfer " + t + " reduces contributions " + twice + " into rank " + dst
                        + " a second time (piece " + piece + ")");
            }
            holds[dst][piece].or(payload);
        } else {
            holds[dst][piece] = (BitSet) payload.clone();
        }
        visibleFrom[dst][piece] = Math.max(visibleFrom[dst][piece], time);
        writer[dst][piece] = t;
    }

    /** What one rank holds of one piece at the end: the ranks whose input is in it. */
    public BitSet holds(int rank, int piece) {
        return (BitSet) holds[rank][piece].clone();
    }

    /**
     * Checks the end state against the operation: every rank that must hold a result holds, for
     * every piece, exactly the contributions the operation defines. Returns the violations seen
     * during the run and at the end; empty means correct.
     */
    public List<String> verify() {
        List<String> all = new ArrayList<>(violations);
        CollectiveRequest req = schedule.request();
        checkCoverage(req.logicalBytes(), all);
        BitSet everyone = new BitSet();
        everyone.set(0, nRanks);
        for (int p = 0; p < schedule.pieceCount(); p++) {
            int segment = schedule.pieceSegment(p);
            for (int r = 0; r < nRanks; r++) {
                BitSet expected = switch (req.op()) {
                    case ALL_REDUCE -> everyone;
                    case REDUCE_SCATTER -> segment == r ? everyone : null;
                    case REDUCE -> r == req.root() ? everyone : null;
                    case ALL_GATHER -> single(segment);
                    case BROADCAST -> single(req.root());
                    case ALL_TO_ALL, SEND_RECV -> r == schedule.pieceDest(p) || r == segment ? single(segment) : null;
                };
                if (expected != null && !expected.equals(holds[r][p])) {
                    all.add("rank " + r + " ends with " + holds[r][p] + " for piece " + p + " [" + schedule.pieceOffset(p)
                            + ", +" + schedule.pieceLength(p) + ") instead of " + expected);
                }
            }
        }
        return all;
    }

    /** The non-empty pieces must tile the logical buffer [0, size) exactly once. */
    private void checkCoverage(long size, List<String> out) {
        Integer[] order = new Integer[schedule.pieceCount()];
        for (int p = 0; p < order.length; p++) {
            order[p] = p;
        }
        Arrays.sort(order, Comparator.comparingLong(schedule::pieceOffset));
        long next = 0;
        for (int p : order) {
            if (schedule.pieceLength(p) == 0) {
                continue;
            }
            if (schedule.pieceOffset(p) != next) {
                out.add("pieces leave a gap or overlap at byte " + next + " (next piece starts at " + schedule.pieceOffset(p) + ")");
                return;
            }
            next += schedule.pieceLength(p);
        }
        if (next != size) {
            out.add("pieces cover " + next + " bytes of a " + size + "-byte buffer");
        }
    }

    private static BitSet single(int rank) {
        BitSet b = new BitSet();
        b.set(rank);
        return b;
    }
}
