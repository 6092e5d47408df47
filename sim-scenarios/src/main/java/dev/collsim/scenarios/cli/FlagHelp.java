package dev.collsim.scenarios.cli;

import dev.collsim.topologies.systems.FlatSwitch;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.ListResourceBundle;

/**
 * What a flag declared once in a mixin says in a command whose use of it differs: picocli looks an
 * option's description up under {@code collsim.COMMAND.FLAG} in the root command's resource bundle
 * before taking the mixin's own. Public, with a public constructor, for {@code ResourceBundle}.
 */
public final class FlagHelp extends ListResourceBundle {
    @Override
    protected Object[][] getContents() {
        SystemPreset preset = SystemPreset.byName(SystemFlag.DEFAULT);
        String defaultsNetwork = preset.defaultNetwork() == null ? "" : ", " + preset.defaultNetwork().id() + " on " + preset.id();
        String nodesNetwork = "between nodes: ${COMPLETION-CANDIDATES} (default: the system's" + defaultsNetwork + ")";
        String eachNetwork = "between each system's nodes: ${COMPLETION-CANDIDATES} (default: each system's own)";
        String flatSwitch = "a preset: ${COMPLETION-CANDIDATES} (default: " + SystemFlag.DEFAULT + "); or " + FlatSwitch.NAME
                + ", with --gpus";
        return new Object[][] {
            {"collsim.bench.system", flatSwitch},
            {"collsim.bench.network", nodesNetwork},
            {"collsim.topo.show.system", flatSwitch},
            {"collsim.topo.show.network", nodesNetwork},
            {"collsim.calibrate.network", nodesNetwork},
            {"collsim.decode.gpus-per-node", "GPUs of each node in use (default: all), e.g. 1 to put a TP group across nodes"},
            {"collsim.compare.gpus-per-node", "GPUs of each node in use (default: all), e.g. 4 to spread layouts over more nodes"},
            {"collsim.validate.gpus-per-node", "GPUs of each node the logs used (default: all)"},
            {"collsim.explain.system", "the node (default: " + SystemFlag.DEFAULT + ")"},
            {"collsim.validate.system", "the system the logs ran on (default: " + SystemFlag.DEFAULT + ")"},
            {"collsim.validate.engine", "with --decode: run every row under this engine instead of the one its framework column names"},
            {"collsim.compare.system", "a preset system; give two or more (or beside --topology)"},
            {"collsim.compare.network", eachNetwork},
            {"collsim.serve.system", "a preset system, at least one; repeat to compare systems"},
            {"collsim.serve.network", eachNetwork},
            {"collsim.prefill.ep", "expert-parallel ranks (default: ${DEFAULT-VALUE})"},
            {"collsim.prefill.batch", "prompts prefilled together (default: ${DEFAULT-VALUE})"},
        };
    }
}
