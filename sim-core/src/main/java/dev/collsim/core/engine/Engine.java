package dev.collsim.core.engine;

import java.util.Arrays;

/**
 * The event loop: integer time in picoseconds, nothing else.
 *
 * <p>Events run in (time, sequence) order. The sequence number is taken when an event is
 * scheduled, so events at equal times run in the order they were scheduled and one input always
 * gives one history.
 *
 * <p>Two heaps and a queue hold what is pending. One-shot events, the vast majority, sit in a plain
 * binary heap whose entries carry their own payload (the handler's number and its argument, or a slot
 * for a lambda), so scheduling and firing one touches nothing but the heap. One-shot events scheduled
 * for the current instant (a successor released the moment its predecessor ends) go to an {@link
 * InstantQueue} instead: they come after everything the heap holds for this instant and before
 * anything later, so a queue keeps their order without sifting through the heap. An event for a later instant that one
 * of the last few scheduled is also for (the successors of a step, all released for when its data
 * lands) joins their batch: a FIFO that stands in the heap as one entry, keyed by its first event. A
 * collective on thousands of GPUs releases hundreds of thousands of events for a few instants at
 * once; they then sit in a heap of a few entries instead of one of hundreds of thousands.
 * {@linkplain #newTimer Timers}, which a model moves or cancels (a flow's completion when its rate
 * changes), sit in a {@link TimerHeap} that moves each in O(log n). The next event is the earliest of
 * the three heads. Arrays grow by doubling, so the steady state allocates nothing per event.
 *
 * <p>The one-shot heap and the table of what its payloads run stay in this class: split into classes
 * of their own they ran the hold model 5-11 % slower at 10^5 and 10^6 pending (the JIT compiled the
 * scheduling path into one large method), where this shape is within the noise of the one before
 * (docs/performance.md).
 *
 * <p>An engine is single-threaded and owns no static state: parallel runs each own their engine.
 */
public final class Engine {
    private long now;
    private long nextSeq;
    private long firedCount;
    private boolean stopped;

    // One-shot heap: time, sequence and payload. A payload >= 0 is handler << 32 | argument (an
    // IndexedEvent among the registered few); a payload < 0 is -1 - slot holding a plain Event, or an
    // IndexedEvent and its argument when the registry is full.
    // A binary heap in three parallel arrays: sifting compares times, which sit eight to a cache
    // line; sequences are read only on ties. (A 4-ary heap of adjacent (time, sequence, payload)
    // triples, tried before, was 8-25 % slower in EngineBenchmark: docs/performance.md.)
    private long[] onceTime;
    private long[] onceSeq;
    private long[] oncePayload;
    private int onceSize;
    /** One-shot events pending in the heap, counting each of a batch's. */
    private int onceEvents;
    // While a one-shot event fires, its entry stays at the root, vacant: the first event its handler
    // schedules for a later instant takes the root's place with one sift down, instead of a pop and a
    // push.
    private boolean rootVacant;

    // Batches: a heap payload below BATCH_LIMIT is BATCH + the batch's number. Each batch holds the
    // (sequence, payload) of events at one time, in sequence order, from head to end; its heap entry
    // carries the time and its head's sequence.
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
    // which events for it go to the queue.
    private static final int RECENT = 4;
    private final long[] recentTime = new long[RECENT];
    private final int[] recentBatch = new int[RECENT];
    private int recentNext;

    private final InstantQueue instant = new InstantQueue();
    private final TimerHeap timers = new TimerHeap();

    /** Handlers get a number while there are this few; others travel in a slot. */
    private static final int MAX_HANDLERS = 32;
    private final IndexedEvent[] handlers = new IndexedEvent[MAX_HANDLERS];
    private int handlerCount;
    private IndexedEvent lastHandler;
    private int lastHandlerNumber;
    private Event[] events = new Event[16];
    private IndexedEvent[] slotHandler = new IndexedEvent[16];
    private int[] slotArg = new int[16];
    private int[] freeEvents = new int[16];
    private int freeEventCount;
    private int eventSlots;

    public Engine() {
        this(64);
    }

    public Engine(int initialCapacity) {
        int cap = Math.max(4, initialCapacity);
        onceTime = new long[cap];
        onceSeq = new long[cap];
        oncePayload = new long[cap];
        Arrays.fill(recentTime, Long.MIN_VALUE);
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
        return onceEvents + instant.size() + timers.size();
    }

    /** Schedules {@code event} once at absolute time {@code time} (not before now). */
    public void schedule(long time, Event event) {
        checkTime(time);
        int slot = takeSlot();
        events[slot] = event;
        push(time, -1L - slot);
    }

    /**
     * Schedules {@code handler.fire(index)} once at absolute time {@code time} (not before now).
     * A model that passes the same few handler objects each time (kept in fields, not a new method
     * reference per call) schedules without touching anything but the heap.
     */
    public void schedule(long time, IndexedEvent handler, int index) {
        checkTime(time);
        int h = handlerNumber(handler);
        if (h >= 0) {
            push(time, ((long) h << 32) | (index & 0xffffffffL));
        } else {
            int slot = takeSlot();
            slotHandler[slot] = handler;
            slotArg[slot] = index;
            push(time, -1L - slot);
        }
    }

    /** The handler's number, registering it while there is room; -1 when the registry is full. */
    private int handlerNumber(IndexedEvent handler) {
        if (handler == lastHandler) { // runs of events of one kind are the rule
            return lastHandlerNumber;
        }
        int found = findHandler(handler);
        if (found >= 0) {
            lastHandler = handler;
            lastHandlerNumber = found;
        }
        return found;
    }

    private int findHandler(IndexedEvent handler) {
        for (int h = 0; h < handlerCount; h++) {
            if (handlers[h] == handler) {
                return h;
            }
        }
        if (handlerCount == MAX_HANDLERS) {
            return -1;
        }
        handlers[handlerCount] = handler;
        return handlerCount++;
    }

    private int takeSlot() {
        if (freeEventCount > 0) {
            return freeEvents[--freeEventCount];
        }
        if (eventSlots == events.length) {
            int cap = eventSlots * 2;
            events = Arrays.copyOf(events, cap);
            slotHandler = Arrays.copyOf(slotHandler, cap);
            slotArg = Arrays.copyOf(slotArg, cap);
            freeEvents = Arrays.copyOf(freeEvents, cap);
        }
        return eventSlots++;
    }

    /** Creates a reusable timer that fires {@code handler.fire(index)} each time it is set and reached. */
    public int newTimer(IndexedEvent handler, int index) {
        return timers.create(handler, index);
    }

    /**
     * Sets (or moves) a timer to absolute time {@code time}. A moved timer counts as newly scheduled
     * for the order of equal-time events.
     */
    public void setTimer(int timer, long time) {
        timers.check(timer);
        checkTime(time);
        timers.set(timer, time, nextSeq++);
    }

    public void cancelTimer(int timer) {
        timers.cancel(timer);
    }

    public boolean isTimerSet(int timer) {
        return timers.isSet(timer);
    }

    /** Cancels and releases a timer; its number may be handed out again. */
    public void freeTimer(int timer) {
        timers.release(timer);
    }

    /** Runs events in (time, sequence) order until none is left or {@link #stop()} is called. */
    public void run() {
        runUntil(Long.MAX_VALUE);
    }

    /** Runs events with time at most {@code limit}; the clock ends at the last fired event. */
    public void runUntil(long limit) {
        stopped = false;
        while (pendingCount() > 0 && !stopped && nextTime() <= limit) {
            fireNext();
        }
    }

    private long nextTime() {
        switch (nextSource()) {
            case QUEUE:
                return now;
            case HEAP:
                return onceTime[0];
            default:
                return timers.headTime();
        }
    }

    private static final int HEAP = 0;
    private static final int QUEUE = 1;
    private static final int TIMER = 2;

    /** Which head comes first in (time, sequence) order; call only with something pending. */
    private int nextSource() {
        int source = TIMER;
        long t = Long.MAX_VALUE;
        long s = Long.MAX_VALUE;
        if (onceSize > 0) {
            source = HEAP;
            t = onceTime[0];
            s = onceSeq[0];
        }
        if (instant.size() > 0) {
            long qs = instant.headSeq();
            if (now < t || (now == t && qs < s)) {
                source = QUEUE;
                t = now;
                s = qs;
            }
        }
        if (timers.size() > 0) {
            long tt = timers.headTime();
            if (tt < t || (tt == t && timers.headSeq() < s)) {
                source = TIMER;
            }
        }
        return source;
    }

    /** Fires the earliest pending event. */
    public void fireNext() {
        int source = nextSource();
        firedCount++;
        if (source == TIMER) {
            now = timers.headTime();
            timers.fireHead();
        } else if (source == QUEUE) {
            dispatch(instant.poll());
        } else {
            now = onceTime[0];
            onceEvents--;
            long payload = oncePayload[0];
            if (payload < BATCH_LIMIT) {
                int b = (int) (payload - BATCH);
                long first = batchPayload[b][batchHead[b]++];
                if (batchHead[b] < batchEnd[b]) { // the batch stays, keyed by its next event
                    siftDownOnce(0, now, batchSeq[b][batchHead[b]], payload);
                    dispatch(first);
                    return;
                }
                freeBatches[freeBatchCount++] = b;
                payload = first;
            }
            rootVacant = true;
            dispatch(payload);
            if (rootVacant) { // the handler scheduled nothing later: close the gap (a throwing handler leaves the engine unusable)
                rootVacant = false;
                popOnce();
            }
        }
    }

    private void dispatch(long payload) {
        if (payload >= 0) {
            handlers[(int) (payload >>> 32)].fire((int) payload);
            return;
        }
        int slot = (int) (-1L - payload);
        Event event = events[slot];
        IndexedEvent handler = slotHandler[slot];
        int arg = slotArg[slot];
        events[slot] = null;
        slotHandler[slot] = null;
        freeEvents[freeEventCount++] = slot;
        if (event != null) {
            event.fire();
        } else {
            handler.fire(arg);
        }
    }

    /** Stops {@link #run()} after the event that is firing now. */
    public void stop() {
        stopped = true;
    }

    private void checkTime(long time) {
        if (time < now) {
            throw new IllegalArgumentException("cannot schedule at " + time + " ps, before now (" + now + " ps)");
        }
    }

    // One-shot events: the queue for the current instant, the heap for later.

    private void push(long time, long payload) {
        if (time == now) {
            instant.add(nextSeq++, payload);
        } else {
            pushOnce(time, payload);
        }
    }

    private void pushOnce(long time, long payload) {
        long seq = nextSeq++;
        onceEvents++;
        int r = recent(time);
        if (r < 0) {
            recentTime[recentNext] = time;
            recentBatch[recentNext] = -1;
            recentNext = (recentNext + 1) % RECENT;
        } else if (recentBatch[r] >= 0) {
            append(recentBatch[r], seq, payload);
            return;
        } else {
            int b = newBatch();
            append(b, seq, payload);
            recentBatch[r] = b;
            payload = BATCH + b;
        }
        if (rootVacant) {
            rootVacant = false;
            siftDownOnce(0, time, seq, payload);
            return;
        }
        if (onceSize == onceTime.length) {
            int cap = 2 * onceSize;
            onceTime = Arrays.copyOf(onceTime, cap);
            onceSeq = Arrays.copyOf(onceSeq, cap);
            oncePayload = Arrays.copyOf(oncePayload, cap);
        }
        long[] ht = onceTime;
        long[] hs = onceSeq;
        long[] hp = oncePayload;
        int pos = onceSize++;
        while (pos > 0) {
            int parent = (pos - 1) >>> 1;
            long pt = ht[parent];
            if (pt < time || (pt == time && hs[parent] < seq)) {
                break;
            }
            ht[pos] = pt;
            hs[pos] = hs[parent];
            hp[pos] = hp[parent];
            pos = parent;
        }
        ht[pos] = time;
        hs[pos] = seq;
        hp[pos] = payload;
    }

    /** Where {@code time} is among the recent times, or -1. */
    private int recent(long time) {
        for (int r = 0; r < RECENT; r++) {
            if (recentTime[r] == time) {
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

    private void append(int b, long seq, long payload) {
        int end = batchEnd[b];
        if (end == batchSeq[b].length) {
            batchSeq[b] = Arrays.copyOf(batchSeq[b], 2 * end);
            batchPayload[b] = Arrays.copyOf(batchPayload[b], 2 * end);
        }
        batchSeq[b][end] = seq;
        batchPayload[b][end] = payload;
        batchEnd[b] = end + 1;
    }

    private void popOnce() {
        int last = --onceSize;
        if (last > 0) {
            siftDownOnce(0, onceTime[last], onceSeq[last], oncePayload[last]);
        }
    }

    /** Places (time, seq, payload) at {@code pos} or below, among the first onceSize entries. */
    private void siftDownOnce(int pos, long t, long s, long p) {
        long[] ht = onceTime;
        long[] hs = onceSeq;
        long[] hp = oncePayload;
        int size = onceSize;
        while (true) {
            int best = 2 * pos + 1;
            if (best >= size) {
                break;
            }
            long bt = ht[best];
            int right = best + 1;
            if (right < size) {
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
