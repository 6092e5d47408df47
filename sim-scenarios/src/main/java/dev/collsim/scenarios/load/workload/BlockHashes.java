package dev.collsim.scenarios.load.workload;

/**
 * A prompt's blocks as a prefix cache keys them: each block's hash covers the block and every block
 * before it (vLLM's block hash includes its parent's), so one hash alone says which prefix it ends, and
 * two requests share their first k blocks exactly where their k-th hashes are equal.
 */
final class BlockHashes {
    /** Tokens per block where the workload makes its own: vLLM's default KV-cache block size on GPUs. */
    static final int BLOCK_TOKENS = 16;

    /** Kinds of block content, kept apart so that no shared block can hash like a request's own. */
    private static final long SHARED = 0x5348415245444250L;
    private static final long OWN = 0x4f574e424c4f434bL;
    private static final long TRACE = 0x5452414345424c4bL;

    private BlockHashes() {}

    /**
     * A trace's block ids chained: the Mooncake trace names each block by an id, equal for equal blocks;
     * chaining makes each hash stand for the whole prefix, as {@link RequestSpec#blockHashes} promises,
     * even where a trace gave one id after two different prefixes.
     */
    static long[] chain(long[] ids) {
        long[] out = new long[ids.length];
        long h = TRACE;
        for (int k = 0; k < ids.length; k++) {
            h = mix(h, ids[k]);
            out[k] = h;
        }
        return out;
    }

    /**
     * Request {@code id}'s prompt of {@code isl} tokens whose first {@code sharedTokens} are the one
     * system prompt every request starts with: its whole blocks inside that prefix hash alike for every
     * request, the rest (the block the prefix ends in included, its tokens differing) are the request's
     * own. One hash per started block.
     */
    static long[] sharedPrefix(int id, int isl, int sharedTokens) {
        int blocks = (isl + BLOCK_TOKENS - 1) / BLOCK_TOKENS;
        int shared = sharedTokens / BLOCK_TOKENS;
        long[] out = new long[blocks];
        long h = 0;
        for (int k = 0; k < blocks; k++) {
            h = k < shared ? mix(h, SHARED + k) : mix(h, OWN ^ ((long) id << 32) ^ k);
            out[k] = h;
        }
        return out;
    }

    /** The parent's hash and a block's content into 64 bits (SplitMix64's finaliser, a bijection, over their combination). */
    private static long mix(long parent, long content) {
        long z = parent * 0x9E3779B97F4A7C15L + content;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
