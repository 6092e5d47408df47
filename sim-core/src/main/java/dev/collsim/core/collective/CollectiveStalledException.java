package dev.collsim.core.collective;

/**
 * A collective whose transfers can no longer progress: the event queue ran dry before every
 * transfer arrived. Names the ranks left waiting and the first transfer that never arrived, so a
 * hang in a real system (or a bug in a schedule) reads as a diagnosis rather than silence.
 */
public final class CollectiveStalledException extends IllegalStateException {
    private final int[] waitingRanks;
    private final int missingTransfer;

    CollectiveStalledException(String message, int[] waitingRanks, int missingTransfer) {
        super(message);
        this.waitingRanks = waitingRanks.clone();
        this.missingTransfer = missingTransfer;
    }

    /** The ranks that still wait for data, ascending. */
    public int[] waitingRanks() {
        return waitingRanks.clone();
    }

    /** The schedule's number of the first transfer that never arrived. */
    public int missingTransfer() {
        return missingTransfer;
    }
}
