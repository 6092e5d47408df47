package dev.collsim.core.engine;

/**
 * Code that runs at a point of simulated time for one element of a model's arrays (a transfer, a
 * flow). Scheduling one stores the handler and the index in the engine's slots, so a model with
 * millions of events allocates nothing per event.
 */
@FunctionalInterface
public interface IndexedEvent {
    void fire(int index);
}
