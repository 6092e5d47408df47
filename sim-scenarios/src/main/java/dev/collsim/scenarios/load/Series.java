package dev.collsim.scenarios.load;

import java.util.ArrayList;
import java.util.List;

/**
 * The deployment's state over a run, kept at most every {@code interval} ms: the interval doubles
 * (and every other sample is dropped) whenever more than {@link #MOST} are held, so a run of any
 * length keeps between MOST/2 and MOST evenly spread samples.
 */
final class Series {
    static final int MOST = 2048;
    private final List<LoadOutcome.Sample> samples = new ArrayList<>();
    private double intervalMs = 1;
    private LoadOutcome.Sample last;

    void offer(LoadOutcome.Sample s) {
        last = s;
        if (!samples.isEmpty() && s.timeMs() - samples.get(samples.size() - 1).timeMs() < intervalMs) {
            return;
        }
        samples.add(s);
        if (samples.size() > MOST) {
            List<LoadOutcome.Sample> kept = new ArrayList<>();
            for (int i = 0; i < samples.size(); i += 2) {
                kept.add(samples.get(i));
            }
            samples.clear();
            samples.addAll(kept);
            intervalMs *= 2;
        }
    }

    LoadOutcome.Sample last() {
        return last;
    }

    List<LoadOutcome.Sample> samples() {
        List<LoadOutcome.Sample> out = new ArrayList<>(samples);
        if (last != null && (out.isEmpty() || out.get(out.size() - 1) != last)) {
            out.add(last);
        }
        return List.copyOf(out);
    }
}
