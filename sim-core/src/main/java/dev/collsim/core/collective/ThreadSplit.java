package dev.collsim.core.collective;

/**
 * How a channel's threads split between two groups that run at the same time: the share that
 * receives and reduces (the transfers a schedule marks as reducing) and the share that copies.
 *
 * @param reduceShare share of the threads that send the reducing transfers
 * @param copyShare   share of the threads that send the copying ones
 */
record ThreadSplit(double reduceShare, double copyShare) {
    /** The whole block sends every transfer. */
    public static final ThreadSplit NONE = new ThreadSplit(1, 1);

    public ThreadSplit {
        if (!(reduceShare > 0 && reduceShare <= 1 && copyShare > 0 && copyShare <= 1)) {
            throw new IllegalArgumentException("thread shares must lie in (0, 1]: " + reduceShare + ", " + copyShare);
        }
    }

    /** The share of the group that sends a transfer that reduces ({@code reduces}) or copies. */
    public double share(boolean reduces) {
        return reduces ? reduceShare : copyShare;
    }
}
