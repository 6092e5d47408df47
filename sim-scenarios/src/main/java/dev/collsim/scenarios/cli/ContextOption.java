package dev.collsim.scenarios.cli;

import picocli.CommandLine.Option;

/** {@code --context}, shared by decode and compare: the tokens each sequence's KV cache holds. */
final class ContextOption {
    @Option(names = "--context", paramLabel = "TOKENS", converter = Tokens.class, defaultValue = "4096",
            description = "tokens in each sequence's KV cache (default: ${DEFAULT-VALUE})")
    int tokens;
}
