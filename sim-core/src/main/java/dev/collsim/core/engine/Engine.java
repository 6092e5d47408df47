package dev.collsim.core.engine;

import java.util.Arrays;

/**
 * The event loop: integer time in picoseconds, nothing else.
 *
 * <p>Pending events live in an indexed binary heap keyed by (time, sequence). The sequence number is
 * taken when an event is scheduled, so events at equal times run in the order they were scheduled
 * and one input always gives one history. Every pending event occupies a <em>slot</em>; a one-shot
 * event gets a slot from a free list and returns it when it fires, while a {@linkplain #newTimer
 * timer} keeps its slot and can be moved or cancelled in O(log n). Arrays grow by doubling, so the
 * steady state allocates nothing per event.
 *
 * <p>An engine is single-threaded and owns no static state: parallel runs each own their engine.
 */
public final class Engine {
    private long now;
    private long nextSeq;
    private long firedCount;
    private boolean stopped;

    // Heap, in heap order.
    private long[] heapTime;
    private long[] heapSeq;
    private int[] heapSlot;
    private int size;

    // Slots, by slot number.
    private Event[] slotEvent;
    private IndexedEvent[] slotIndexed;
    private int[] slotArg;
    private int[] slotPos; // position in the heap, or -1 when not scheduled
    private boolean[] slotIsTimer;
    private int[] freeSlots;
    private int freeCount;
    private int slotCount;

    public Engine() {
        this(64);
    }

    public Engine(int initialCapacity) {
        int cap = Math.max(4, initialCapacity);
        heapTime = new long[cap];
        heapSeq = new long[cap];
        heapSlot = new int[cap];
        slotEvent = new Event[cap];
        slotIndexed = new IndexedEvent[cap];
        slotArg = new int[cap];
        slotPos = new int[cap];
        slotIsTimer = new boolean[cap];
        freeSlots = new int[cap];
    }

    /** Current simulated time in picoseconds. */
    public long now() {
        return now;
    }

    /** Number of events fired so far. */
    public long firedCount() {
        return firedCount;
    }

    public int pendingCount() {
        return size;
    }

    /** Schedules {@code event} once at absolute time {@code time} (not before now). */
    public void schedule(long time, Event event) {
        int slot = takeSlot(false);
        slotEvent[slot] = event;
        push(slot, checkTime(time));
    }

    /** Schedules {@code handler.fire(index)} once at absolute time {@code time} (not before now). */
    public void schedule(long time, IndexedEvent handler, int index) {
        int slot = takeSlot(false);
        slotIndexed[slot] = handler;
        slotArg[slot] = index;
        push(slot, checkTime(time));
    }

    /** Creates a reusable timer that fires {@code handler.fire(index)} each time it is set and reached. */
    public int newTimer(IndexedEvent handler, int index) {
        int slot = takeSlot(true);
        slotIndexed[slot] = handler;
        slotArg[slot] = index;
        return slot;
    }

    /**
     * Sets (or moves) a timer to absolute time {@code time}. A moved timer counts as newly scheduled
     * for the order of equal-time events.
     */
    public void setTimer(int timer, long time) {
        checkTimer(timer);
        checkTime(time);
        int pos = slotPos[timer];
        if (pos < 0) {
            push(timer, time);
            return;
        }
        long oldTime = heapTime[pos];
        heapTime[pos] = time;
        heapSeq[pos] = nextSeq++;
        if (time < oldTime) {
            siftUp(pos);
        } else {
            siftDown(pos);
        }
    }

    public void cancelTimer(int timer) {
        checkTimer(timer);
        int pos = slotPos[timer];
        if (pos >= 0) {
            removeAt(pos);
        }
    }

    public boolean isTimerSet(int timer) {
        checkTimer(timer);
        return slotPos[timer] >= 0;
    }

    /** Cancels and releases a timer; its number may be handed out again. */
    public void freeTimer(int timer) {
        cancelTimer(timer);
        slotIsTimer[timer] = false;
        releaseSlot(timer);
    }

    /** Runs events in (time, sequence) order until none is left or {@link #stop()} is called. */
    public void run() {
        runUntil(Long.MAX_VALUE);
    }

    /** Runs events with time at most {@code limit}; the clock ends at the last fired event. */
    public void runUntil(long limit) {
        stopped = false;
        while (size > 0 && !stopped && heapTime[0] <= limit) {
            fireNext();
        }
    }

    /** Fires the earliest pending event. */
    public void fireNext() {
        int slot = heapSlot[0];
        now = heapTime[0];
        removeAt(0);
        firedCount++;
        Event event = slotEvent[slot];
        IndexedEvent indexed = slotIndexed[slot];
        int arg = slotArg[slot];
        if (!slotIsTimer[slot]) {
            releaseSlot(slot);
        }
        if (event != null) {
            event.fire();
        } else {
            indexed.fire(arg);
        }
    }

    /** Stops {@link #run()} after the event that is firing now. */
    public void stop() {
        stopped = true;
    }

    private long checkTime(long time) {
        if (time < now) {
            throw new IllegalArgumentException("cannot schedule at " + time + " ps, before now (" + now + " ps)");
        }
        return time;
    }

    private void checkTimer(int timer) {
        if (timer < 0 || timer >= slotCount || !slotIsTimer[timer]) {
            throw new IllegalArgumentException("not a live timer: " + timer);
        }
    }

    private int takeSlot(boolean timer) {
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            if (slotCount == slotPos.length) {
                growSlots();
            }
            slot = slotCount++;
        }
        slotPos[slot] = -1;
        slotIsTimer[slot] = timer;
        return slot;
    }

    private void releaseSlot(int slot) {
        slotEvent[slot] = null;
        slotIndexed[slot] = null;
        slotPos[slot] = -1;
        freeSlots[freeCount++] = slot;
    }

    private void growSlots() {
        int cap = slotPos.length * 2;
        slotEvent = Arrays.copyOf(slotEvent, cap);
        slotIndexed = Arrays.copyOf(slotIndexed, cap);
        slotArg = Arrays.copyOf(slotArg, cap);
        slotPos = Arrays.copyOf(slotPos, cap);
        slotIsTimer = Arrays.copyOf(slotIsTimer, cap);
        freeSlots = Arrays.copyOf(freeSlots, cap);
    }

    private void push(int slot, long time) {
        if (size == heapTime.length) {
            int cap = size * 2;
            heapTime = Arrays.copyOf(heapTime, cap);
            heapSeq = Arrays.copyOf(heapSeq, cap);
            heapSlot = Arrays.copyOf(heapSlot, cap);
        }
        int pos = size++;
        heapTime[pos] = time;
        heapSeq[pos] = nextSeq++;
        heapSlot[pos] = slot;
        slotPos[slot] = pos;
        siftUp(pos);
    }

    private void removeAt(int pos) {
        slotPos[heapSlot[pos]] = -1;
        int last = --size;
        if (pos == last) {
            return;
        }
        heapTime[pos] = heapTime[last];
        heapSeq[pos] = heapSeq[last];
        heapSlot[pos] = heapSlot[last];
        slotPos[heapSlot[pos]] = pos;
        if (pos > 0 && less(pos, (pos - 1) >>> 1)) {
            siftUp(pos);
        } else {
            siftDown(pos);
        }
    }

    private boolean less(int a, int b) {
        return heapTime[a] < heapTime[b] || (heapTime[a] == heapTime[b] && heapSeq[a] < heapSeq[b]);
    }

    private void siftUp(int pos) {
        long t = heapTime[pos];
        long s = heapSeq[pos];
        int slot = heapSlot[pos];
        while (pos > 0) {
            int parent = (pos - 1) >>> 1;
            long pt = heapTime[parent];
            if (pt < t || (pt == t && heapSeq[parent] < s)) {
                break;
            }
            heapTime[pos] = pt;
            heapSeq[pos] = heapSeq[parent];
            heapSlot[pos] = heapSlot[parent];
            slotPos[heapSlot[pos]] = pos;
            pos = parent;
        }
        heapTime[pos] = t;
        heapSeq[pos] = s;
        heapSlot[pos] = slot;
        slotPos[slot] = pos;
    }

    private void siftDown(int pos) {
        long t = heapTime[pos];
        long s = heapSeq[pos];
        int slot = heapSlot[pos];
        int half = size >>> 1;
        while (pos < half) {
            int child = 2 * pos + 1;
            int right = child + 1;
            if (right < size && (heapTime[right] < heapTime[child]
                    || (heapTime[right] == heapTime[child] && heapSeq[right] < heapSeq[child]))) {
                child = right;
            }
            long ct = heapTime[child];
            if (t < ct || (t == ct && s < heapSeq[child])) {
                break;
            }
            heapTime[pos] = ct;
            heapSeq[pos] = heapSeq[child];
            heapSlot[pos] = heapSlot[child];
            slotPos[heapSlot[pos]] = pos;
            pos = child;
        }
        heapTime[pos] = t;
        heapSeq[pos] = s;
        heapSlot[pos] = slot;
        slotPos[slot] = pos;
    }
}
