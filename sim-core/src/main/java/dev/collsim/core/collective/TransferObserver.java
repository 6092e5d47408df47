package dev.collsim.core.collective;

/** Watches a schedule run: told when each transfer starts and when its data becomes visible. */
public interface TransferObserver {
    /** The sender starts reading its data for transfer {@code t} at {@code time} (ps). */
    void started(int t, long time);

    /** Transfer {@code t}'s data is visible at its receiver from {@code time} (ps) on. */
    void delivered(int t, long time);
}
