package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's --help renders cleanly: picocli warns on System.err about a stray '%' in a description. */
class HelpTextTest {
    @Test
    void everyCommandsHelpRendersWithoutPicocliWarnings() {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            for (String name : new CommandLine(new Main()).getSubcommands().keySet()) {
                CliRunner r = CliRunner.run(name, "--help");
                assertEquals(0, r.code(), name + ": " + r.err());
                assertTrue(r.out().contains("Usage: collsim " + name), name + " printed no usage");
            }
        } finally {
            System.setErr(saved);
        }
        String warnings = captured.toString(StandardCharsets.UTF_8);
        assertFalse(warnings.contains("picocli WARN"), warnings);
    }

    /** A command list shows only the first line of each description: it must be a whole sentence. */
    @Test
    void everyCommandsListedDescriptionIsAWholeSentence() {
        assertWholeSentences(new CommandLine(new Main()));
    }

    private static void assertWholeSentences(CommandLine parent) {
        parent.getSubcommands().forEach((name, sub) -> {
            String[] description = sub.getCommandSpec().usageMessage().description();
            assertTrue(description.length > 0 && description[0].endsWith("."), name + ": \"" + String.join(" ", description) + "\"");
            assertWholeSentences(sub);
        });
    }
}
