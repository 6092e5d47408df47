package dev.collsim.scenarios.validate;

import java.util.Collection;

/**
 * Errors scored without hiding a bias: each simulated-to-measured ratio r counts as |ln r|, so a
 * run 2x slow and one 2x fast are equally wrong and do not cancel; the signed mean of ln r, kept
 * apart, is the bias.
 */
public final class LogError {
    private LogError() {}

    /** exp(mean |ln r|) - 1; NaN for no ratios (no error is not a small one). */
    public static double geomeanAbs(Collection<Double> ratios) {
        return Math.exp(ratios.stream().mapToDouble(r -> Math.abs(Math.log(r))).average().orElse(Double.NaN)) - 1;
    }

    /** exp(mean ln r) - 1: negative when the simulation is fast on the whole; NaN for no ratios. */
    public static double bias(Collection<Double> ratios) {
        return Math.exp(ratios.stream().mapToDouble(Math::log).average().orElse(Double.NaN)) - 1;
    }
}
