package dev.collsim.core.engine;

/**
 * One-shot events scheduled for the current instant (a successor released the moment its
 * predecessor ends), in order: a ring of (sequence, payload). They come after everything the heap
 * holds for this instant and before anything later, so a FIFO keeps their order without sifting.
 */
final class InstantQueue {
    private long[] seq = new long[16];
    private long[] payload = new long[16];
    private int head;
    private int count;

    int size() {
        return count;
    }

    long headSeq() {
        return seq[head];
    }

    long poll() {
        long p = payload[head];
        head = (head + 1) & (payload.length - 1);
        count--;
        return p;
    }

    void add(long s, long p) {
        int capacity = payload.length;
        if (count == capacity) { // unroll the ring into arrays twice the size
            long[] seqs = new long[2 * capacity];
            long[] payloads = new long[2 * capacity];
            for (int i = 0; i < count; i++) {
                int from = (head + i) & (capacity - 1);
                seqs[i] = seq[from];
                payloads[i] = payload[from];
            }
            seq = seqs;
            payload = payloads;
            head = 0;
            capacity *= 2;
        }
        int tail = (head + count) & (capacity - 1);
        seq[tail] = s;
        payload[tail] = p;
        count++;
    }
}
