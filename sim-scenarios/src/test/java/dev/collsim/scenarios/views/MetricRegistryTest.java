package dev.collsim.scenarios.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.scenarios.decode.AllReduceKind;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.Prefill;
import dev.collsim.scenarios.decode.PrefillResult;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.metrics.DecodeMetrics;
import dev.collsim.scenarios.metrics.Metric;
import dev.collsim.scenarios.metrics.PrefillMetrics;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The registry is what the JSON writes: each metric once, under its key, with its value, in the registry's order. */
class MetricRegistryTest {
    private static DecodeSpec llama8b(int tp, int batch) {
        return new DecodeSpec(ModelConfig.load("llama-3-8b"), DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), tp, 1, 1, 1, batch, 4096,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true, ServingEngine.DEFAULT, null, null);
    }

    @Test
    void decodeJsonWritesEveryRegisteredMetricInOrderWithItsValue() {
        DecodeResult r = DecodeStep.run(llama8b(2, 8));
        ObjectNode json = DecodeJson.of(r);
        assertKeysInOrder(json, DecodeMetrics.ALL.stream().map(Metric::key).toList());
        for (Metric<DecodeResult> m : DecodeMetrics.ALL) {
            assertEquals(m.value(r), json.get(m.key()).asDouble(), 0, m.key());
        }
        assertTrue(json.get(DecodeMetrics.KERNELS.key()).isIntegralNumber(), "a count is written whole");
        assertTrue(json.get(DecodeMetrics.COMM_BYTES.key()).isIntegralNumber(), "bytes sent are written whole");
    }

    @Test
    void prefillJsonWritesEveryRegisteredMetricInOrderWithItsValue() {
        PrefillResult r = Prefill.run(llama8b(2, 1), 1024, 1, 0);
        ObjectNode json = PrefillJson.of(r, 0);
        assertKeysInOrder(json, PrefillMetrics.ALL.stream().map(Metric::key).toList());
        for (Metric<PrefillResult> m : PrefillMetrics.ALL) {
            assertEquals(m.value(r), json.get(m.key()).asDouble(), 0, m.key());
        }
    }

    @Test
    void everyKeyIsOnceAndEveryNamedListIsDrawnFromTheRegistry() {
        List<String> keys = DecodeMetrics.ALL.stream().map(Metric::key).toList();
        assertEquals(keys.size(), new HashSet<>(keys).size(), "a key twice: " + keys);
        keys.forEach(k -> assertTrue(k.matches("[a-z][a-z0-9_]*"), k));
        for (List<Metric<DecodeResult>> named : List.of(DecodeMetrics.SWEPT, DecodeMetrics.REPLICATED, DecodeMetrics.COMPARED)) {
            assertTrue(DecodeMetrics.ALL.containsAll(named), named.toString());
        }
    }

    /** The registry's keys appear in the JSON in the registry's order, one after another. */
    private static void assertKeysInOrder(JsonNode json, List<String> registered) {
        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        int first = fields.indexOf(registered.get(0));
        assertTrue(first >= 0, "no " + registered.get(0) + " in " + fields);
        assertEquals(registered, fields.subList(first, first + registered.size()));
    }
}
