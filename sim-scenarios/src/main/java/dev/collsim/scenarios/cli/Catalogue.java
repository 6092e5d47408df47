package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.Arrays;
import java.util.Iterator;

/** The names the catalogue holds, for help texts ({@code ${COMPLETION-CANDIDATES}}) that list them as they are. */
final class Catalogue {
    private Catalogue() {}

    /** Every preset system's name. */
    static final class Systems implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(SystemPreset.values()).map(SystemPreset::id).iterator();
        }
    }

    /** Every catalogue model's name. */
    static final class Models implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return ModelConfig.CATALOGUE.iterator();
        }
    }

    /** Every network's name. */
    static final class Networks implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(NetworkPreset.values()).map(NetworkPreset::id).iterator();
        }
    }
}
