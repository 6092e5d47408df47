package dev.collsim.scenarios.load.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Azure and Mooncake traces read as published; every bad line named by file, line and field. */
class TraceFileTest {
    /** The first rows of AzureLLMInferenceTrace_code.csv (Azure/AzurePublicDataset, 2023). */
    static final String AZURE = """
            TIMESTAMP,ContextTokens,GeneratedTokens
            2023-11-16 18:17:03.9799600,4808,10
            2023-11-16 18:17:04.0319600,3180,8
            2023-11-16 18:17:04.0781490,110,27
            """;
    /** Rows in the shape of FAST25-release/traces/conversation_trace.jsonl (kvcache-ai/Mooncake), starting later than 0. */
    static final String MOONCAKE = """
            {"timestamp": 27482, "input_length": 1100, "output_length": 52, "hash_ids": [46, 47, 48]}
            {"timestamp": 30535, "input_length": 600, "output_length": 26, "hash_ids": [46, 2366]}

            {"timestamp": 30535, "input_length": 512, "output_length": 1}
            """;

    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text, StandardCharsets.UTF_8);
        return f;
    }

    @Test
    void azureRowsWithTimesFromTheFirst() throws IOException {
        TraceFile t = TraceFile.read(file("code.csv", AZURE));
        assertEquals(TraceFile.Format.AZURE, t.format());
        assertEquals(3, t.rows().size());
        TraceFile.Row r = t.rows().get(1);
        assertEquals(3, r.line());
        assertEquals(52.0, r.timeMs(), 1e-9);
        assertEquals(3180, r.isl());
        assertEquals(8, r.osl());
        assertEquals(0, r.hashIds().length);
        assertEquals(0.0, t.rows().get(0).timeMs());
        assertEquals(98.189, t.rows().get(2).timeMs(), 1e-9);
        assertFalse(t.hasBlocks());
        assertEquals("Azure LLM inference trace code.csv (3 requests)", t.describe());
    }

    @Test
    void azureAsExcelSavesIt() throws IOException {
        TraceFile plain = TraceFile.read(file("plain.csv", AZURE));
        TraceFile saved = TraceFile.read(file("saved.csv", "\uFEFF" + AZURE.replace("\n", "\r\n")));
        for (int i = 0; i < plain.rows().size(); i++) {
            assertEquals(plain.rows().get(i).timeMs(), saved.rows().get(i).timeMs());
            assertEquals(plain.rows().get(i).isl(), saved.rows().get(i).isl());
        }
    }

    @Test
    void azureTimesWithAnOffsetOrFewerDigitsAndColumnsInAnyOrder() {
        TraceFile t = TraceFile.parse("""
                GeneratedTokens,TIMESTAMP,ContextTokens
                5,2024-05-10 00:00:00.5+00:00,100
                6,2024-05-10 02:00:01+02:00,200
                """, "t.csv");
        assertEquals(500.0, t.rows().get(1).timeMs(), 1e-9);
        assertEquals(200, t.rows().get(1).isl());
        assertEquals(6, t.rows().get(1).osl());
    }

    @Test
    void mooncakeRowsWithTheirBlockIds() throws IOException {
        TraceFile t = TraceFile.read(file("conv.txt", MOONCAKE));
        assertEquals(TraceFile.Format.MOONCAKE, t.format());
        assertEquals(512, t.format().blockTokens());
        List<TraceFile.Row> r = t.rows();
        assertEquals(3, r.size());
        assertEquals(0.0, r.get(0).timeMs());
        assertEquals(3053.0, r.get(1).timeMs());
        assertEquals(4, r.get(2).line());
        assertArrayEquals(new long[] {46, 47, 48}, r.get(0).hashIds());
        assertArrayEquals(new long[] {46, 2366}, r.get(1).hashIds());
        assertArrayEquals(new long[0], r.get(2).hashIds());
        assertEquals(600, r.get(1).isl());
        assertEquals(26, r.get(1).osl());
        assertTrue(t.hasBlocks());
    }

    private static String refused(String text) {
        String m = assertThrows(InputException.class, () -> TraceFile.parse(text, "t.trace")).getMessage();
        assertFalse(m.contains("\n"), m);
        return m;
    }

    private static void refusedAs(String text, String expected) {
        String m = refused(text);
        assertTrue(m.startsWith(expected), m);
    }

    private static final String HEAD = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

    @Test
    void badAzureLines() {
        refusedAs(HEAD + "2023-11-16 18:17:03.9,-5,10\n", "t.trace: line 2: ContextTokens -5: expected a whole number of tokens from 1");
        refusedAs(HEAD + "2023-11-16 18:17:03.9,100,\n", "t.trace: line 2: GeneratedTokens missing: expected a whole number");
        refusedAs(HEAD + "2023-11-16 18:17:03.9,,10\n", "t.trace: line 2: ContextTokens missing");
        refusedAs(HEAD + "2023-11-16 18:17:03.9,100,0\n", "t.trace: line 2: GeneratedTokens 0: expected a whole number of tokens from 1");
        refusedAs(HEAD + "2023-11-16 18:17:03.9,100,1.5\n", "t.trace: line 2: GeneratedTokens 1.5");
        refusedAs(HEAD + "2023-11-16 18:17:04.0,100,5\n2023-11-16 18:17:03.9,100,5\n",
                "t.trace: line 3: TIMESTAMP 2023-11-16 18:17:03.9 is before the line above's; expected times in order");
        refusedAs("TIMESTAMP,ContextTokens\n2023-11-16 18:17:03.9,100\n", "t.trace: line 1: missing column GeneratedTokens");
        refusedAs("TIMESTAMP,ContextTokens,GeneratedTokens,Model\n", "t.trace: line 1: unknown column 'Model'");
        refusedAs(HEAD + "yesterday,100,5\n", "t.trace: line 2: TIMESTAMP 'yesterday': expected a date and time");
        refusedAs(HEAD + "2023-11-16 18:17:03.9,100\n", "t.trace: line 2: 2 fields; expected 3");
        refusedAs(HEAD, "t.trace: line 2: no requests after the header");
    }

    @Test
    void badMooncakeLines() {
        String ok = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n";
        refusedAs(ok + "{\"timestamp\": 1, \"input_length\": 10, \"output_length\": 5\n", "t.trace: line 2: not JSON (");
        refusedAs(ok + "[1, 2]\n", "t.trace: line 2: expected a JSON object");
        refusedAs("{\"timestamp\": 0, \"output_length\": 5}\n", "t.trace: line 1: input_length missing");
        refusedAs("{\"timestamp\": 0, \"input_length\": -3, \"output_length\": 5}\n", "t.trace: line 1: input_length -3: expected a whole number");
        refusedAs("{\"timestamp\": 0, \"input_length\": 3, \"output_length\": 0}\n", "t.trace: line 1: output_length 0: expected a whole number of tokens from 1");
        refusedAs("{\"timestamp\": 0, \"input_length\": \"3\", \"output_length\": 2}\n", "t.trace: line 1: input_length '\"3\"'");
        refusedAs("{\"input_length\": 3, \"output_length\": 2}\n", "t.trace: line 1: timestamp missing: expected ms, 0 or more");
        refusedAs("{\"timestamp\": -1, \"input_length\": 3, \"output_length\": 2}\n", "t.trace: line 1: timestamp '-1': expected ms");
        refusedAs("{\"timestamp\": 5, \"input_length\": 3, \"output_length\": 2}\n{\"timestamp\": 4, \"input_length\": 3, \"output_length\": 2}\n",
                "t.trace: line 2: timestamp 4 is before the line above's");
        refusedAs("{\"timestamp\": 0, \"input_length\": 1100, \"output_length\": 2, \"hash_ids\": [1, 2]}\n",
                "t.trace: line 1: hash_ids has 2 ids; expected 3, one per block of 512 tokens of input_length 1100");
        refusedAs("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [\"a\"]}\n",
                "t.trace: line 1: hash_ids[0] '\"a\"': expected a whole number");
        refusedAs("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"session_id\": 7}\n",
                "t.trace: line 1: unknown field 'session_id'; the Mooncake trace has timestamp, input_length, output_length and hash_ids");
    }

    @Test
    void anEmptyFile() {
        refusedAs("", "t.trace: line 1: empty; expected the Azure LLM inference trace's CSV");
        refusedAs("\n  \n", "t.trace: line 1: empty");
    }
}
