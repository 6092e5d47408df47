package dev.collsim.scenarios.properties;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.DataSize;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.scenario.Scenario;
import dev.collsim.topologies.file.TopologyFile;
import dev.collsim.topologies.file.TopoMatrixImport;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.systems.WhatIf;
import java.io.StringReader;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every parser of user input, fed random text: it returns or throws the project's InputException,
 * never anything else (no NullPointerException, NumberFormatException, parser-library exception).
 */
class ParserPropertiesTest {
    /** Text that looks enough like the inputs to reach past the first check: units, YAML, JSON, tables. */
    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> tokens = Arbitraries.of("1", "-3", "0", "2.5", "1e309", "NaN", "GB/s", "Gb/s", "us", "ms", "MiB", "K", ":", "=",
                ",", " ", "\n", "  - ", "{", "}", "[", "]", "\"", "version", "1", "gpu", "h100", "devices", "links", "name", "kind",
                "from", "to", "rate", "latency", "command", "bench", "sweep", "options", "axes", "hidden_size", "num_hidden_layers",
                "GPU0", "NV4", "SYS", "PIX", "X", "@", "+", "#", "\t");
        return Arbitraries.oneOf(tokens.list().ofMaxSize(40).map(l -> String.join("", l)), Arbitraries.strings().ofMaxLength(60));
    }

    @Property(tries = 400, seed = "20261129")
    void unitsAndKnobs(@ForAll("texts") String text) {
        only(() -> Rate.parse(text));
        only(() -> TimeSpan.parse(text));
        only(() -> DataSize.parse(text));
        only(() -> WhatIf.parseScales("--scale", text));
        only(() -> WhatIf.parseRatio("--oversubscription", text));
        only(() -> WhatIf.parseLinkEdits("--degrade", text, false));
        only(() -> WhatIf.parseLinkEdits("--link-down", text, true));
    }

    @Property(tries = 300, seed = "20261129")
    void files(@ForAll("texts") String text) {
        only(() -> TopologyFile.read(new StringReader(text), "random.yaml"));
        only(() -> ModelConfig.parse(text, "random.json"));
        only(() -> Scenario.read(new StringReader(text), "random.yaml", (command, option) -> option.equals("system")));
        only(() -> dev.collsim.topologies.file.NcclXmlImport.toYaml("<system>" + text + "</system>", "random.xml",
                new dev.collsim.topologies.file.NcclXmlImport.Options(null, null, null, Rate.gigabytesPerSecond(40))));
        only(() -> TopoMatrixImport.toYaml(List.of(text.split("\n")), "random.txt", GpuModel.H100_SXM,
                new TopoMatrixImport.Rates(Rate.gigabytesPerSecond(20), Rate.gigabytesPerSecond(27), Rate.gigabytesPerSecond(40))));
    }

    private static void only(Runnable parse) {
        try {
            parse.run();
        } catch (InputException expected) {
            // the one error type input may raise
        }
    }
}
