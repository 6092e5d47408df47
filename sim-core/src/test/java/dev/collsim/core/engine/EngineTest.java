package dev.collsim.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EngineTest {
    record Entry(long time, long seq, int id) {}

    /** What the engine should do: every event in (time, sequence) order, sequence numbers taken as scheduled. */
    static final class Reference {
        private final PriorityQueue<Entry> queue = new PriorityQueue<>(
                (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
        private long seq;

        Entry add(long time, int id) {
            Entry x = new Entry(time, seq++, id);
            queue.add(x);
            return x;
        }

        void remove(Entry x) {
            queue.remove(x);
        }

        /** A timer set to {@code time}: its entry {@code old} (null if unset) goes, a new one comes. */
        Entry move(Entry old, long time, int id) {
            if (old != null) {
                queue.remove(old);
            }
            return add(time, id);
        }

        Entry poll() {
            return queue.poll();
        }

        int size() {
            return queue.size();
        }

        boolean isEmpty() {
            return queue.isEmpty();
        }
    }

    @Test
    void eventsRunInTimeOrderAndTiesInSchedulingOrder() {
        Engine e = new Engine(2);
        List<String> log = new ArrayList<>();
        e.schedule(30, () -> log.add("c@" + e.now()));
        e.schedule(10, () -> log.add("a@" + e.now()));
        e.schedule(20, () -> log.add("b1@" + e.now()));
        e.schedule(20, () -> log.add("b2@" + e.now()));
        e.schedule(20, (IndexedEvent) i -> log.add("b3#" + i), 7);
        e.run();
        assertEquals(List.of("a@10", "b1@20", "b2@20", "b3#7", "c@30"), log);
        assertEquals(30, e.now());
        assertEquals(5, e.firedCount());
    }

    @Test
    void eventsScheduledWhileRunningAtTheSameTimeRunAfterThoseAlreadyThere() {
        Engine e = new Engine();
        List<Integer> log = new ArrayList<>();
        e.schedule(5, () -> {
            log.add(1);
            e.schedule(5, () -> log.add(3));
        });
        e.schedule(5, () -> log.add(2));
        e.run();
        assertEquals(List.of(1, 2, 3), log);
    }

    @Test
    void timersMoveAndCancel() {
        Engine e = new Engine();
        List<String> log = new ArrayList<>();
        int t = e.newTimer(i -> log.add("t" + i + "@" + e.now()), 4);
        e.setTimer(t, 100);
        e.setTimer(t, 40);
        assertTrue(e.isTimerSet(t));
        e.schedule(50, () -> e.setTimer(t, 60));
        e.run();
        assertEquals(List.of("t4@40", "t4@60"), log);
        e.setTimer(t, 70);
        e.cancelTimer(t);
        assertFalse(e.isTimerSet(t));
        e.run();
        assertEquals(2, log.size());
        e.freeTimer(t);
        assertThrows(IllegalArgumentException.class, () -> e.setTimer(t, 80));
    }

    @Test
    void cannotScheduleInThePast() {
        Engine e = new Engine();
        e.schedule(10, () -> { });
        e.run();
        assertThrows(IllegalArgumentException.class, () -> e.schedule(9, () -> { }));
    }

    @Test
    void runUntilStopsAtTheLimit() {
        Engine e = new Engine();
        List<Long> log = new ArrayList<>();
        for (long t = 1; t <= 5; t++) {
            e.schedule(t * 10, () -> log.add(e.now()));
        }
        e.runUntil(30);
        assertEquals(List.of(10L, 20L, 30L), log);
        assertEquals(2, e.pendingCount());
    }

    /** Random schedules, moves and cancels against a PriorityQueue of (time, sequence). */
    @Test
    void matchesAReferenceQueueUnderRandomLoad() {
        Random rnd = new Random(42);
        Engine e = new Engine(4);
        Reference ref = new Reference();
        List<Integer> fired = new ArrayList<>();
        int timers = 50;
        int[] handle = new int[timers];
        Entry[] timerEntry = new Entry[timers];
        for (int i = 0; i < timers; i++) {
            handle[i] = e.newTimer(fired::add, -1 - i);
        }
        for (int i = 0; i < 20_000; i++) {
            int op = rnd.nextInt(4);
            long at = e.now() + (rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(100));
            if (op == 0) {
                int id = i;
                e.schedule(at, () -> fired.add(id));
                ref.add(at, id);
            } else if (op == 1) {
                int k = rnd.nextInt(timers);
                e.setTimer(handle[k], at);
                timerEntry[k] = ref.move(timerEntry[k], at, -1 - k);
            } else if (op == 2) {
                int k = rnd.nextInt(timers);
                e.cancelTimer(handle[k]);
                if (timerEntry[k] != null) {
                    ref.remove(timerEntry[k]);
                    timerEntry[k] = null;
                }
            } else if (e.pendingCount() > 0) {
                e.fireNext();
                Entry x = ref.poll();
                assertEquals(x.id, fired.get(fired.size() - 1));
                assertEquals(x.time, e.now());
                if (x.id < 0) {
                    timerEntry[-1 - x.id] = null;
                }
            }
            assertEquals(ref.size(), e.pendingCount());
        }
    }

    /**
     * Handlers that schedule more events, a quarter of them at the instant they fire (the engine's
     * queue), the rest later (its heap, through the vacant root), beside timers moved by the same
     * handlers: the order is the reference's (time, sequence) order throughout.
     */
    @Test
    void eventsScheduledByHandlersMatchAReferenceQueue() {
        Random rnd = new Random(7);
        Engine e = new Engine(4);
        Reference ref = new Reference();
        List<Integer> fired = new ArrayList<>();
        int[] nextId = {0};
        int timer = e.newTimer(fired::add, -1);
        Entry[] timerEntry = new Entry[1];
        IndexedEvent spawn = new IndexedEvent() {
            @Override
            public void fire(int id) {
                fired.add(id);
                for (int k = rnd.nextInt(3); k > 0 && nextId[0] < 50_000; k--) {
                    long at = e.now() + (rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(50));
                    e.schedule(at, this, nextId[0]);
                    ref.add(at, nextId[0]++);
                }
                if (rnd.nextInt(8) == 0) {
                    long at = e.now() + rnd.nextInt(20);
                    e.setTimer(timer, at);
                    timerEntry[0] = ref.move(timerEntry[0], at, -1);
                }
            }
        };
        for (int i = 0; i < 100; i++) {
            long at = rnd.nextInt(10);
            e.schedule(at, spawn, nextId[0]);
            ref.add(at, nextId[0]++);
        }
        int firedCount = 0;
        while (e.pendingCount() > 0) {
            e.fireNext();
            Entry x = ref.poll();
            assertEquals(x.id, fired.get(fired.size() - 1));
            assertEquals(x.time, e.now());
            if (x.id < 0) {
                timerEntry[0] = null;
            }
            firedCount++;
            assertEquals(ref.size(), e.pendingCount());
        }
        assertTrue(ref.isEmpty());
        assertTrue(firedCount > 40_000, "the load ran: " + firedCount);
    }

    /**
     * Bursts for a few later instants, as a collective's step releases them: runs of events for one
     * time (batched), times cycling through more than the engine remembers (so that one time gets
     * several batches), single events between, handlers adding to the bursts while they fire, and
     * timers moved to the bursts' instants between their events.
     */
    @Test
    void burstsForAFewInstantsMatchAReferenceQueue() {
        Random rnd = new Random(11);
        Engine e = new Engine(4);
        Reference ref = new Reference();
        List<Integer> fired = new ArrayList<>();
        int[] nextId = {0};
        int[] timer = new int[3];
        Entry[] timerEntry = new Entry[timer.length];
        for (int k = 0; k < timer.length; k++) {
            int id = -1 - k;
            timer[k] = e.newTimer(x -> {
                fired.add(id);
                timerEntry[-1 - id] = null;
            }, id);
        }
        IndexedEvent spawn = new IndexedEvent() {
            @Override
            public void fire(int id) {
                fired.add(id);
                if (rnd.nextInt(3) == 0 && nextId[0] < 200_000) {
                    long at = e.now() + 1 + rnd.nextInt(3) * 10L;
                    for (int k = rnd.nextInt(5); k >= 0; k--) {
                        e.schedule(at, this, nextId[0]);
                        ref.add(at, nextId[0]++);
                        if (rnd.nextInt(4) == 0) {
                            int t = rnd.nextInt(timer.length);
                            e.setTimer(timer[t], at);
                            timerEntry[t] = ref.move(timerEntry[t], at, -1 - t);
                        }
                    }
                }
            }
        };
        int firedCount = 0;
        for (int round = 0; round < 300; round++) {
            int times = 1 + rnd.nextInt(7);
            for (int i = 0, n = rnd.nextInt(400); i < n; i++) {
                long at = e.now() + 5 + (rnd.nextInt(8) == 0 ? rnd.nextInt(1000) : (i % times) * 3L);
                e.schedule(at, spawn, nextId[0]);
                ref.add(at, nextId[0]++);
            }
            for (int i = rnd.nextInt(600); i > 0 && e.pendingCount() > 0; i--) {
                e.fireNext();
                Entry x = ref.poll();
                assertEquals(x.id, fired.get(fired.size() - 1));
                assertEquals(x.time, e.now());
                firedCount++;
                assertEquals(ref.size(), e.pendingCount());
            }
        }
        while (e.pendingCount() > 0) {
            e.fireNext();
            assertEquals(ref.poll().id, fired.get(fired.size() - 1));
            firedCount++;
        }
        assertTrue(ref.isEmpty());
        assertTrue(firedCount > 50_000, "the load ran: " + firedCount);
    }

    /** A caller that passes a new handler object each time still gets every event, in order, without the registry growing. */
    @Test
    void freshHandlersEachTimeStillWork() {
        Engine e = new Engine();
        List<Integer> log = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            int expected = i;
            e.schedule(i / 10, (IndexedEvent) x -> log.add(x == expected ? x : -1), i);
        }
        e.run();
        assertEquals(1000, log.size());
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, log.get(i));
        }
    }
}
