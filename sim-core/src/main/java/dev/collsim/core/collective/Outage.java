package dev.collsim.core.collective;

/**
 * Links down for a while during a run: from {@code startPicos} after the run starts, for {@code
 * durationPicos}, they carry a millionth of their rate (flows on them wait; nothing is rerouted, as
 * NCCL does not reroute a connection it has set up), then their full rate again.
 *
 * @param links fabric link ids, both directions of a connection
 */
public record Outage(int[] links, long startPicos, long durationPicos) {
    public static final double DOWN_FRACTION = 1e-6;

    public Outage {
        links = links.clone();
        if (startPicos < 0 || durationPicos < 0) {
            throw new IllegalArgumentException("an outage starts and lasts a time of zero or more");
        }
    }
}
