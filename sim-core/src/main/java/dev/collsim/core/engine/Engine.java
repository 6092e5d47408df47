package dev.collsim.core.engine;

/**
 * The event loop: integer time in picoseconds, nothing else.
 *
 * <p>Events run in (time, sequence) order. The sequence number is taken when an event is
 * scheduled, so events at equal times run in the order they were scheduled and one input always
 * gives one history.
 *
 * <p>Three structures hold what is pending, and the next event is the earliest of their heads.
 * One-shot events, the vast majority, go to a {@link OnceHeap} whose entries carry their payload
 * (an {@link EventTable} packs what to run into a {@code long}), so scheduling and firing one touches
 * nothing but the heap; events for one instant that arrive in a burst share one heap entry. One-shot
 * events scheduled for the current instant go to an {@link InstantQueue} instead, which keeps their
 * order without sifting. {@linkplain #newTimer Timers}, which a model moves or cancels (a flow's
 * completion when its rate changes), sit in a {@link TimerHeap} that moves each in O(log n).
 * Arrays grow by doubling, so the steady state allocates nothing per event.
 *
 * <p>An engine is single-threaded and owns no static state: parallel runs each own their engine.
 */
public final class Engine {
    private long now;
    private long nextSeq;
    private long firedCount;
    private boolean stopped;

    private final OnceHeap once;
    private final InstantQueue instant = new InstantQueue();
    private final TimerHeap timers = new TimerHeap();
    private final EventTable table = new EventTable();

    public Engine() {
        this(64);
    }

    public Engine(int initialCapacity) {
        once = new OnceHeap(Math.max(4, initialCapacity));
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
        return once.events() + instant.size() + timers.size();
    }

    /** Schedules {@code event} once at absolute time {@code time} (not before now). */
    public void schedule(long time, Event event) {
        checkTime(time);
        push(time, table.payload(event));
    }

    /**
     * Schedules {@code handler.fire(index)} once at absolute time {@code time} (not before now).
     * A model that passes the same few handler objects each time (kept in fields, not a new method
     * reference per call) schedules without touching anything but the heap.
     */
    public void schedule(long time, IndexedEvent handler, int index) {
        checkTime(time);
        push(time, table.payload(handler, index));
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
                return once.headTime();
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
        if (once.size() > 0) {
            source = HEAP;
            t = once.headTime();
            s = once.headSeq();
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
            table.dispatch(instant.poll());
        } else {
            now = once.headTime();
            table.dispatch(once.take());
            once.closeVacancy();
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

    /** One-shot events: the queue for the current instant, the heap for later. */
    private void push(long time, long payload) {
        if (time == now) {
            instant.add(nextSeq++, payload);
        } else {
            once.push(time, nextSeq++, payload);
        }
    }
}
