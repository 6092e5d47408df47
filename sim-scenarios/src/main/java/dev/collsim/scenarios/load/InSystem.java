package dev.collsim.scenarios.load;

/** A count over time, integrated: the mean number of requests in the deployment from the run's start to its last event. */
final class InSystem {
    private double lastMs;
    private int count;
    private double area;

    /** The count is {@code n} from {@code timeMs} on. */
    void at(double timeMs, int n) {
        area += count * (timeMs - lastMs);
        lastMs = timeMs;
        count = n;
    }

    double mean() {
        return lastMs > 0 ? area / lastMs : 0;
    }
}
