package dev.collsim.scenarios.serve;

import dev.collsim.scenarios.decode.DecodeSpec;

/**
 * The KV-cache tokens one replica of a layout holds: where the search knows the engine, at the memory
 * share the engine takes (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static), so that a plan
 * proposes only what that engine runs as planned.
 */
@FunctionalInterface
public interface KvRoom {
    long tokens(DecodeSpec layout);

    /** No bound beyond the layout's weights and KV cache fitting the GPUs' whole memory, the search's own check. */
    KvRoom WHOLE_MEMORY = layout -> Long.MAX_VALUE;
}
