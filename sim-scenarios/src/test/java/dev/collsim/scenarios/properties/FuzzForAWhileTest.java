package dev.collsim.scenarios.properties;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.DataSize;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.core.input.TextFile;
import dev.collsim.scenarios.scenario.Scenario;
import dev.collsim.scenarios.validate.CalibrationSet;
import dev.collsim.scenarios.validate.Measured;
import java.nio.charset.StandardCharsets;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.file.NcclXmlImport;
import dev.collsim.topologies.file.TopoMatrixImport;
import dev.collsim.topologies.file.TopologyFile;
import dev.collsim.topologies.systems.WhatIf;
import java.io.StringReader;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random-text fuzzing of every input parser for a while, on a random seed: runs only when asked,
 * {@code mvn -pl sim-scenarios test -Dtest=FuzzForAWhileTest -Dfuzz.seconds=600}, and prints how many
 * inputs it tried. The build's fixed-seed property tests are {@link ParserPropertiesTest}.
 */
class FuzzForAWhileTest {
    static final int PARSERS = 14;
    static final String[] T = {"1", "-3", "0", "2.5", "1e309", "NaN", "GB/s", "Gb/s", "us", "ms", "MiB", "K", ":", "=", ",", " ", "\n",
        "  - ", "{", "}", "[", "]", "\"", "version", "1", "gpu", "h100", "devices", "links", "name", "kind", "from", "to", "rate",
        "latency", "command", "bench", "sweep", "options", "axes", "hidden_size", "num_hidden_layers", "GPU0", "NV4", "SYS", "PIX", "X",
        "@", "+", "#", "\t", "\u00e9", "\u0089", "sum", "float", "-1", "1048576", "dataset_id,op,dtype,size_bytes,time_us", "all_reduce", "<gpu dev=\"0\" sm=\"90\"/>", "<pci busid=\"0\">", "</pci>", "<cpu>", "</cpu>", "nvlink", "gpu0", "cpu0"};

    @Test
    void fuzz() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("fuzz.seconds") != null, "fuzzing runs only with -Dfuzz.seconds");
        long seconds = Long.getLong("fuzz.seconds");
        Random r = new Random(System.nanoTime());
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long cases = 0;
        while (System.nanoTime() < end) {
            String text = randomText(r);
            try {
                parseAll(text);
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("input " + text.replace("\n", "\\n") + " -> " + e, e);
            }
            cases++;
        }
        System.out.println("fuzz: " + cases + " inputs, each through " + PARSERS + " parsers, in " + seconds + " s");
    }

    /** A soup of the inputs' own tokens and random characters, up to 40 pieces. */
    static String randomText(Random r) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(40);
        for (int i = 0; i < n; i++) {
            sb.append(r.nextInt(10) == 0 ? String.valueOf((char) r.nextInt(128)) : T[r.nextInt(T.length)]);
        }
        return sb.toString();
    }

    /** The text through every parser of user input, each allowed to throw only InputException. */
    static void parseAll(String text) {
        only(() -> Rate.parse(text));
        only(() -> TimeSpan.parse(text));
        only(() -> DataSize.parse(text));
        only(() -> WhatIf.parseScales("--scale", text));
        only(() -> WhatIf.parseRatio("--o", text));
        only(() -> WhatIf.parseLinkEdits("--d", text, false));
        only(() -> TopologyFile.read(new StringReader(text), "f.yaml"));
        only(() -> ModelConfig.parse(text, "f.json"));
        only(() -> Scenario.read(new StringReader(text), "f.yaml", (c, o) -> o.equals("system") ? Scenario.OptionKind.REPEATABLE : Scenario.OptionKind.UNKNOWN));
        only(() -> NcclXmlImport.toYaml("<system>" + text + "</system>", "f.xml",
                new NcclXmlImport.Options(null, null, null, Rate.gigabytesPerSecond(40))));
        only(() -> TopoMatrixImport.toYaml(List.of(text.split("\n")), "f.txt", GpuModel.H100_SXM,
                new TopoMatrixImport.Rates(Rate.gigabytesPerSecond(20), Rate.gigabytesPerSecond(27), Rate.gigabytesPerSecond(40))));
        only(() -> Measured.parseLog(List.of(text.split("\n")), "f.txt"));
        only(() -> CalibrationSet.read(new StringReader(text), "f.csv"));
        only(() -> TextFile.decode(text.getBytes(StandardCharsets.ISO_8859_1), "f.bin"));
    }

    private static void only(Runnable parse) {
        try {
            parse.run();
        } catch (InputException expected) {
            // fine
        }
    }
}
