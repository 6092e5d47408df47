package dev.collsim.core.engine;

/** Code that runs at a point of simulated time. */
@FunctionalInterface
public interface Event {
    void fire();
}
