package dev.collsim.core.flow;

/** Told when the last byte of a flow has left the network; {@code tag} is what the flow was started with. */
@FunctionalInterface
public interface FlowListener {
    void transferred(int tag);
}
