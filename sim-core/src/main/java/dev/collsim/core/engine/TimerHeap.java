package dev.collsim.core.engine;

import java.util.Arrays;

/**
 * The engine's timers: reusable events that a model sets, moves and cancels (a flow's completion,
 * moved whenever its rate changes). An indexed binary heap on (time, sequence) that knows each
 * timer's position, so moving or cancelling one is O(log n).
 */
final class TimerHeap {
    // Heap order: time, sequence and timer id per position.
    private long[] time = new long[16];
    private long[] seq = new long[16];
    private int[] id = new int[16];
    private int size;
    // Per timer: what it fires, its position in the heap (-1 when not set), whether it is live.
    private IndexedEvent[] handler = new IndexedEvent[16];
    private int[] arg = new int[16];
    private int[] pos = new int[16];
    private boolean[] live = new boolean[16];
    private int[] free = new int[16];
    private int freeCount;
    private int count;

    int size() {
        return size;
    }

    long headTime() {
        return time[0];
    }

    long headSeq() {
        return seq[0];
    }

    int create(IndexedEvent h, int index) {
        int t;
        if (freeCount > 0) {
            t = free[--freeCount];
        } else {
            if (count == handler.length) {
                int cap = count * 2;
                handler = Arrays.copyOf(handler, cap);
                arg = Arrays.copyOf(arg, cap);
                pos = Arrays.copyOf(pos, cap);
                live = Arrays.copyOf(live, cap);
                free = Arrays.copyOf(free, cap);
            }
            t = count++;
        }
        handler[t] = h;
        arg[t] = index;
        pos[t] = -1;
        live[t] = true;
        return t;
    }

    /** Sets or moves a live timer to {@code at}, with sequence {@code s}. */
    void set(int timer, long at, long s) {
        int p = pos[timer];
        if (p < 0) {
            if (size == time.length) {
                int cap = size * 2;
                time = Arrays.copyOf(time, cap);
                seq = Arrays.copyOf(seq, cap);
                id = Arrays.copyOf(id, cap);
            }
            p = size++;
            put(p, at, s, timer);
            siftUp(p);
            return;
        }
        long old = time[p];
        time[p] = at;
        seq[p] = s;
        if (at < old) {
            siftUp(p);
        } else {
            siftDown(p);
        }
    }

    void cancel(int timer) {
        check(timer);
        int p = pos[timer];
        if (p >= 0) {
            removeAt(p);
        }
    }

    boolean isSet(int timer) {
        check(timer);
        return pos[timer] >= 0;
    }

    void release(int timer) {
        cancel(timer);
        live[timer] = false;
        handler[timer] = null;
        free[freeCount++] = timer;
    }

    /** Takes the earliest timer off the heap and fires it. */
    void fireHead() {
        int timer = id[0];
        removeAt(0);
        handler[timer].fire(arg[timer]);
    }

    void check(int timer) {
        if (timer < 0 || timer >= count || !live[timer]) {
            throw new IllegalArgumentException("not a live timer: " + timer);
        }
    }

    private void removeAt(int p) {
        pos[id[p]] = -1;
        int last = --size;
        if (p == last) {
            return;
        }
        move(last, p);
        if (p > 0 && less(p, (p - 1) >>> 1)) {
            siftUp(p);
        } else {
            siftDown(p);
        }
    }

    private boolean less(int a, int b) {
        return time[a] < time[b] || (time[a] == time[b] && seq[a] < seq[b]);
    }

    private void siftUp(int p) {
        long t = time[p];
        long s = seq[p];
        int timer = id[p];
        while (p > 0) {
            int parent = (p - 1) >>> 1;
            long pt = time[parent];
            if (pt < t || (pt == t && seq[parent] < s)) {
                break;
            }
            move(parent, p);
            p = parent;
        }
        put(p, t, s, timer);
    }

    private void siftDown(int p) {
        long t = time[p];
        long s = seq[p];
        int timer = id[p];
        int half = size >>> 1;
        while (p < half) {
            int child = 2 * p + 1;
            int right = child + 1;
            if (right < size && (time[right] < time[child] || (time[right] == time[child] && seq[right] < seq[child]))) {
                child = right;
            }
            long ct = time[child];
            if (t < ct || (t == ct && s < seq[child])) {
                break;
            }
            move(child, p);
            p = child;
        }
        put(p, t, s, timer);
    }

    /** Moves the timer at heap position {@code from} to {@code to}. */
    private void move(int from, int to) {
        put(to, time[from], seq[from], id[from]);
    }

    private void put(int p, long t, long s, int timer) {
        time[p] = t;
        seq[p] = s;
        id[p] = timer;
        pos[timer] = p;
    }
}
