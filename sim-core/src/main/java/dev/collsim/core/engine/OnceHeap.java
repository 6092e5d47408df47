package dev.collsim.core.engine;

import java.util.Arrays;

/**
 * One-shot events for later instants: a binary heap on (time, sequence) in three parallel arrays
 * (sifting compares times, which sit eight to a cache line; sequences are read only on ties). A
 * 4-ary heap of adjacent (time, sequence, payload) triples, tried before, was 8-25 % slower in
 * EngineBenchmark (docs/performance.md).
 *
 * <p>An event for an instant that one of the last few pushed is also for (the successors of a step,
 * all released for when its data lands) joins their batch: a FIFO that stands in the heap as one
 * entry, keyed by its first event. A collective on thousands of GPUs releases hundreds of thousands
 * of events for a few instants at once; they then sit in a heap of a few entries instead of one of
 * hundreds of thousands.
 *
 * <p>While the head fires, its entry may stay at the root, vacant ({@link #take}): the first event
 * its handler pushes for a later instant takes the root's place with one sift down, instead of a
 * pop and a push.
 */
final class OnceHeap {
    private long[] time;
    private long[] seq;
    private long[] payload;
    private int size;
    /** Events pending, counting each of a batch's. */
    private int events;
    private boolean rootVacant;

    // A payload below BATCH_LIMIT is BATCH + the batch's number. Each batch holds the (sequence,
    // payload) of events at one time, in sequence order, from head to end; its heap entry carries the
    // time and its head's sequence.
    private static final long BATCH = Long.MIN_VALUE;
    private static final long BATCH_LIMIT = Long.MIN_VALUE / 2;
    private long[][] batchSeq = new long[4][];
    private long[][] batchPayload = new long[4][];
    private int[] batchHead = new int[4];
    private int[] batchEnd = new int[4];
    private int batchCount;
    private int[] freeBatches = new int[4];
    private int freeBatchCount;
    // The times the last few events went into the heap for, each with its batch, or -1 while the time
    // has just one event (which a second one for that time then follows in a new batch). An entry is
    // never stale when matched: a time's batch is freed only once the clock reaches that time, after
    // which events for it go to the engine's instant queue.
    private static final int RECENT = 4;
    private final long[] recentTime = new long[RECENT];
    private final int[] recentBatch = new int[RECENT];
    private int recentNext;

    OnceHeap(int capacity) {
        time = new long[capacity];
        seq = new long[capacity];
        payload = new long[capacity];
        Arrays.fill(recentTime, Long.MIN_VALUE);
    }

    /** Entries in the heap (a batch is one). */
    int size() {
        return size;
    }

    /** Events pending, counting each of a batch's. */
    int events() {
        return events;
    }

    long headTime() {
        return time[0];
    }

    long headSeq() {
        return seq[0];
    }

    /**
     * Takes the head event and returns its payload. Unless it came from a batch with more events
     * (the batch then stays, keyed by its next), the root is left vacant for what the event's handler
     * pushes; call {@link #closeVacancy} once the handler has run.
     */
    long take() {
        events--;
        long p = payload[0];
        if (p < BATCH_LIMIT) {
            int b = (int) (p - BATCH);
            long first = batchPayload[b][batchHead[b]++];
            if (batchHead[b] < batchEnd[b]) {
                siftDown(0, time[0], batchSeq[b][batchHead[b]], p);
                return first;
            }
            freeBatches[freeBatchCount++] = b;
            p = first;
        }
        rootVacant = true;
        return p;
    }

    /** Closes the gap a fired head left if its handler pushed nothing later (a throwing handler leaves the engine unusable). */
    void closeVacancy() {
        if (rootVacant) {
            rootVacant = false;
            int last = --size;
            if (last > 0) {
                siftDown(0, time[last], seq[last], payload[last]);
            }
        }
    }

    void push(long t, long s, long p) {
        events++;
        int r = recent(t);
        if (r >= 0) {
            if (recentBatch[r] >= 0) {
                append(recentBatch[r], s, p);
                return;
            }
            p = startBatch(r, s, p);
        } else {
            recentTime[recentNext] = t;
            recentBatch[recentNext] = -1;
            recentNext = (recentNext + 1) % RECENT;
        }
        if (rootVacant) {
            rootVacant = false;
            siftDown(0, t, s, p);
        } else {
            siftUp(t, s, p);
        }
    }

    /** The second event for a recent time: a batch holding it, whose payload then stands in the heap. */
    private long startBatch(int r, long s, long p) {
        int b = newBatch();
        append(b, s, p);
        recentBatch[r] = b;
        return BATCH + b;
    }

    /** Adds (t, s, p) as a new entry, at the bottom and up. */
    private void siftUp(long t, long s, long p) {
        if (size == time.length) {
            int cap = 2 * size;
            time = Arrays.copyOf(time, cap);
            seq = Arrays.copyOf(seq, cap);
            payload = Arrays.copyOf(payload, cap);
        }
        long[] ht = time;
        long[] hs = seq;
        long[] hp = payload;
        int pos = size++;
        while (pos > 0) {
            int parent = (pos - 1) >>> 1;
            long pt = ht[parent];
            if (pt < t || (pt == t && hs[parent] < s)) {
                break;
            }
            ht[pos] = pt;
            hs[pos] = hs[parent];
            hp[pos] = hp[parent];
            pos = parent;
        }
        ht[pos] = t;
        hs[pos] = s;
        hp[pos] = p;
    }

    /** Where {@code t} is among the recent times, or -1. */
    private int recent(long t) {
        for (int r = 0; r < RECENT; r++) {
            if (recentTime[r] == t) {
                return r;
            }
        }
        return -1;
    }

    private int newBatch() {
        int b;
        if (freeBatchCount > 0) {
            b = freeBatches[--freeBatchCount];
        } else {
            if (batchCount == batchSeq.length) {
                int cap = 2 * batchCount;
                batchSeq = Arrays.copyOf(batchSeq, cap);
                batchPayload = Arrays.copyOf(batchPayload, cap);
                batchHead = Arrays.copyOf(batchHead, cap);
                batchEnd = Arrays.copyOf(batchEnd, cap);
                freeBatches = Arrays.copyOf(freeBatches, cap);
            }
            b = batchCount++;
            batchSeq[b] = new long[16];
            batchPayload[b] = new long[16];
        }
        batchHead[b] = 0;
        batchEnd[b] = 0;
        return b;
    }

    private void append(int b, long s, long p) {
        int end = batchEnd[b];
        if (end == batchSeq[b].length) {
            batchSeq[b] = Arrays.copyOf(batchSeq[b], 2 * end);
            batchPayload[b] = Arrays.copyOf(batchPayload[b], 2 * end);
        }
        batchSeq[b][end] = s;
        batchPayload[b][end] = p;
        batchEnd[b] = end + 1;
    }

    /** Places (t, s, p) at {@code pos} or below, among the first {@code size} entries. */
    private void siftDown(int pos, long t, long s, long p) {
        long[] ht = time;
        long[] hs = seq;
        long[] hp = payload;
        int n = size;
        while (true) {
            int best = 2 * pos + 1;
            if (best >= n) {
                break;
            }
            long bt = ht[best];
            int right = best + 1;
            if (right < n) {
                long rt = ht[right];
                if (rt < bt || (rt == bt && hs[right] < hs[best])) {
                    best = right;
                    bt = rt;
                }
            }
            if (t < bt || (t == bt && s < hs[best])) {
                break;
            }
            ht[pos] = bt;
            hs[pos] = hs[best];
            hp[pos] = hp[best];
            pos = best;
        }
        ht[pos] = t;
        hs[pos] = s;
        hp[pos] = p;
    }
}
