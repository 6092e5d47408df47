package dev.collsim.scenarios.serve;

/**
 * The queue prompts wait in before their prefill, as M/D/1: requests arrive at random (Poisson) and
 * each prefill takes a fixed time S. By Pollaczek-Khinchine the mean wait at utilization rho is
 * rho S / (2 (1 - rho)): nothing at light load, without bound as rho nears 1.
 */
final class PrefillQueue {
    private PrefillQueue() {}

    /** The mean wait (ms) before a prefill of {@code serviceMs} at {@code utilization} (0 to 1). */
    static double waitMs(double utilization, double serviceMs) {
        if (utilization >= 1) {
            return Double.POSITIVE_INFINITY;
        }
        return utilization * serviceMs / (2 * (1 - utilization));
    }

    /** The highest utilization whose mean wait is at most {@code slackMs}: 2T / (S + 2T); 0 when there is no slack. */
    static double maxUtilization(double serviceMs, double slackMs) {
        return slackMs <= 0 ? 0 : 2 * slackMs / (serviceMs + 2 * slackMs);
    }
}
