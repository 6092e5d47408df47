package dev.collsim.core.engine;

import java.util.Arrays;

/**
 * What a pending one-shot event will run, packed in a {@code long} so that the heap and the queue
 * hold nothing but primitives. A payload {@code >= 0} is {@code handler << 32 | argument}, for the
 * first few {@link IndexedEvent}s met (a model passes the same few handler objects again and
 * again); a payload {@code < 0} is {@code -1 - slot}, a slot holding a plain {@link Event}, or an
 * {@code IndexedEvent} and its argument once the registry is full.
 */
final class EventTable {
    /** Handlers get a number while there are this few; others travel in a slot. */
    private static final int MAX_HANDLERS = 32;
    private final IndexedEvent[] handlers = new IndexedEvent[MAX_HANDLERS];
    private int handlerCount;
    private IndexedEvent lastHandler;
    private int lastHandlerNumber;
    private Event[] events = new Event[16];
    private IndexedEvent[] slotHandler = new IndexedEvent[16];
    private int[] slotArg = new int[16];
    private int[] freeSlots = new int[16];
    private int freeSlotCount;
    private int slots;

    long payload(Event event) {
        int slot = takeSlot();
        events[slot] = event;
        return -1L - slot;
    }

    long payload(IndexedEvent handler, int index) {
        int h = handlerNumber(handler);
        if (h >= 0) {
            return ((long) h << 32) | (index & 0xffffffffL);
        }
        int slot = takeSlot();
        slotHandler[slot] = handler;
        slotArg[slot] = index;
        return -1L - slot;
    }

    /** Runs what {@code payload} holds, freeing its slot first. */
    void dispatch(long payload) {
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
        freeSlots[freeSlotCount++] = slot;
        if (event != null) {
            event.fire();
        } else {
            handler.fire(arg);
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
        if (freeSlotCount > 0) {
            return freeSlots[--freeSlotCount];
        }
        if (slots == events.length) {
            int cap = slots * 2;
            events = Arrays.copyOf(events, cap);
            slotHandler = Arrays.copyOf(slotHandler, cap);
            slotArg = Arrays.copyOf(slotArg, cap);
            freeSlots = Arrays.copyOf(freeSlots, cap);
        }
        return slots++;
    }
}
