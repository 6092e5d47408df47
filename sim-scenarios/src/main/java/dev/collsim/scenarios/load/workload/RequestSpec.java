package dev.collsim.scenarios.load.workload;

/**
 * One request as the client sends it.
 *
 * @param id          its place in the workload, from 0
 * @param arrivalMs   when it is sent, ms from the run's start; ignored in a closed loop (it is sent when a slot frees)
 * @param isl         prompt tokens
 * @param osl         output tokens (at least 1: the first token)
 * @param blockHashes the prompt's blocks of {@code blockTokens} tokens, each a hash of the block and every block before
 *                    it (as the Mooncake trace's {@code hash_ids} and vLLM's prefix cache have them): two requests share
 *                    their first k blocks where their first k hashes are equal; empty where nothing is shared
 * @param blockTokens tokens per hashed block (Mooncake: 512); 0 where there are no hashes
 */
public record RequestSpec(int id, double arrivalMs, int isl, int osl, long[] blockHashes, int blockTokens) {
    public RequestSpec(int id, double arrivalMs, int isl, int osl) {
        this(id, arrivalMs, isl, osl, new long[0], 0);
    }
}
