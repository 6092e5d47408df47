package dev.collsim.scenarios.serve;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * When a disaggregated prefill's KV cache leaves for the decode instance. vLLM's NixlConnector has
 * the decode instance pull the blocks once the prefill is done, and TensorRT-LLM and SGLang send
 * after the context phase; a layer-wise push (Mooncake's, LMCache's) starts each layer's share as
 * that layer ends.
 */
public enum KvTransfer {
    AFTER_PREFILL("after-prefill"),
    LAYER_BY_LAYER("layer-by-layer");

    private final String label;

    KvTransfer(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static KvTransfer byName(String name) {
        return Arrays.stream(values()).filter(k -> k.label.equalsIgnoreCase(name)).findFirst()
                .orElseThrow(() -> new InputException("--kv-transfer " + name + ": expected one of "
                        + Arrays.stream(values()).map(KvTransfer::label).collect(Collectors.joining(", "))));
    }
}
