package dev.collsim.core.collective;

/**
 * When each transfer of a run started and when its data reached its receiver's own memory, in ps of
 * the run's engine ({@link CollectiveSimulator}'s starts at 0). A run keeps no per-transfer times
 * of its own: only the views that show them (traces, explain) pay for them.
 */
public final class TransferTimes implements TransferObserver {
    private final long[] started;
    private final long[] received;

    public TransferTimes(int transfers) {
        started = new long[transfers];
        received = new long[transfers];
    }

    @Override
    public void started(int t, long time) {
        started[t] = time;
    }

    @Override
    public void delivered(int t, long time) {
    }

    @Override
    public void received(int t, long time) {
        received[t] = time;
    }

    public long startedPicos(int t) {
        return started[t];
    }

    public long receivedPicos(int t) {
        return received[t];
    }
}
