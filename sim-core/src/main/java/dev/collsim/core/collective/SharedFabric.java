package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.engine.Event;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.flow.FlowNetwork;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * One flow network over a fabric, on an engine others use too, where collectives start whenever
 * something on the engine starts them (a kernel on a GPU's stream, say): runs that overlap in time
 * contend for the links they share, max-min fair flow by flow, and nowhere else. Every run is added
 * before the first starts, as the flow network is told every route before its first flow.
 */
public final class SharedFabric {
    private final Engine engine;
    private final Fabric fabric;
    private final double[] rates;
    private final FlowNetwork network;
    private final List<ScheduleRunner> runners = new ArrayList<>();
    private final Set<int[]> routes = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<TransferObserver> observers = new ArrayList<>();
    private boolean declared;

    public SharedFabric(Engine engine, Fabric fabric) {
        this.engine = engine;
        this.fabric = fabric;
        this.rates = new double[fabric.links().size()];
        for (int l = 0; l < rates.length; l++) {
            rates[l] = fabric.link(l).rate().bytesPerSecond();
        }
        this.network = new FlowNetwork(engine, rates);
    }

    /** Adds a run to start later; returns its number. */
    public int add(CollectiveRun run) {
        if (declared) {
            throw new IllegalStateException("a run added after the first started");
        }
        if (run.placement().fabric() != fabric) {
            throw new IllegalArgumentException("collectives on a shared fabric are placed on it");
        }
        if (run.checkCapacity()) {
            network.setCheckCapacity(true);
        }
        if (run.observer() != null && observers.isEmpty()) {
            network.setLinkRateListener((picos, links, bytesPerSecond) -> observers.forEach(o -> o.linkRateChanged(picos, links,
                    bytesPerSecond)));
        }
        if (run.observer() != null) {
            observers.add(run.observer());
        }
        ScheduleRunner runner = new ScheduleRunner(engine, network, run.placement());
        runner.setObserver(run.observer());
        runner.setStepJitter(run.stepJitter());
        routes.addAll(runner.prepare(run.schedule(), run.costs()));
        runners.add(runner);
        return runners.size() - 1;
    }

    /** Starts run {@code k} now; {@code onEnd} (or null) runs on the engine at the instant it ends. */
    public void start(int k, Event onEnd) {
        if (!declared) {
            network.declareRoutes(routes);
            routes.clear();
            declared = true;
        }
        runners.get(k).begin(onEnd);
    }

    /**
     * From now on, for {@code durationPicos}, the links of {@code outage} carry a sliver of their
     * rate ({@link Outage#DOWN_FRACTION}), then their own again.
     */
    void scheduleOutage(Outage outage) {
        long start = engine.now() + outage.startPicos();
        engine.schedule(start, () -> setOutageRates(outage, Outage.DOWN_FRACTION));
        engine.schedule(start + outage.durationPicos(), () -> setOutageRates(outage, 1));
    }

    private void setOutageRates(Outage outage, double fraction) {
        for (int l : outage.links()) {
            network.setCapacity(l, rates[l] * fraction);
        }
    }

    /**
     * What run {@code k} produced, once the engine has run; the bytes per link are what every run
     * on this fabric put there.
     *
     * @throws CollectiveStalledException if some transfer can never arrive
     */
    public RunResult result(int k) {
        return runners.get(k).result();
    }
}
