package dev.collsim.core.collective;

/** Watches a schedule run: told when each transfer starts and when its data becomes visible. */
public interface TransferObserver {
    /** The sender starts reading its data for transfer {@code t} at {@code time} (ps). */
    void started(int t, long time);

    /** Transfer {@code t}'s data is visible at its receiver from {@code time} (ps) on. */
    void delivered(int t, long time);

    /**
     * Transfer {@code t}'s data is in its receiver's own memory from {@code time} (ps) on: when it
     * is delivered, or for a transfer staged through host memory once the receiver has read it.
     */
    default void received(int t, long time) {
    }

    /**
     * From {@code picos} on, the links {@code links} (fabric link ids; not to be modified) carry
     * {@code bytesPerSecond} more wire bytes a second (less, if negative): a flow of some transfer
     * started, was re-rated or ended. For views of each link's load over time.
     */
    default void linkRateChanged(long picos, int[] links, double bytesPerSecond) {
    }

    /** Tells both observers, {@code first} first. */
    static TransferObserver both(TransferObserver first, TransferObserver second) {
        return new TransferObserver() {
            @Override
            public void started(int t, long time) {
                first.started(t, time);
                second.started(t, time);
            }

            @Override
            public void delivered(int t, long time) {
                first.delivered(t, time);
                second.delivered(t, time);
            }

            @Override
            public void received(int t, long time) {
                first.received(t, time);
                second.received(t, time);
            }

            @Override
            public void linkRateChanged(long picos, int[] links, double bytesPerSecond) {
                first.linkRateChanged(picos, links, bytesPerSecond);
                second.linkRateChanged(picos, links, bytesPerSecond);
            }
        };
    }
}
