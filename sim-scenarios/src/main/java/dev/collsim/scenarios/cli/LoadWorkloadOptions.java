package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.load.workload.Lengths;
import dev.collsim.scenarios.load.workload.TraceFile;
import dev.collsim.scenarios.load.workload.Workload;
import dev.collsim.scenarios.load.workload.WorkloadBuilder;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * The requests of a load run, in {@code vllm bench serve}'s terms: a closed loop ({@code --concurrency})
 * or an open one ({@code --rate}, {@code --burstiness}), how many, their lengths or a published trace,
 * and the share of each prompt that every request starts with. docs/serving.md, "Workloads", says more.
 */
final class LoadWorkloadOptions {
    @Option(names = "--concurrency", paramLabel = "N",
            description = "closed loop: N requests always in flight, the next sent as one ends (vLLM's --max-concurrency)")
    Integer concurrency;

    @Option(names = "--rate", paramLabel = "REQ/S",
            description = "requests per second: with --deployment an open loop's arrivals, Poisson unless --burstiness says otherwise;"
                    + " without, the traffic each plan is sized for (GPUs needed)")
    Double rate;

    @Option(names = "--burstiness", paramLabel = "B",
            description = "gamma gaps between --rate's requests, shape B, as vllm bench serve's: 1 is Poisson, below 1 burstier, above 1 more even"
                    + " (default: 1)")
    Double burstiness;

    @Option(names = "--requests", paramLabel = "N",
            description = "requests to send (default: " + WorkloadBuilder.DEFAULT_REQUESTS + ", as vllm bench serve's --num-prompts; with --trace, all of its)")
    Integer requests;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "0", description = "the first N requests run but are not measured; in a closed loop they all end before the measured ones are sent,"
                    + " --concurrency at once, as AIPerf's and vllm bench serve's warm-ups (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "seed of the arrivals' and lengths' random streams (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--isl", paramLabel = "LENGTH", converter = LengthText.class,
            description = "prompt tokens: a number (1024, 4k); with --deployment also uniform:LO-HI, normal:MEAN,SD, lognormal:MEAN,SD"
                    + " (of the lengths) or file:PATH (one per line)")
    String isl;

    @Option(names = "--osl", paramLabel = "LENGTH", converter = LengthText.class, description = "output tokens, as --isl")
    String osl;

    @Option(names = "--random-range-ratio", paramLabel = "R",
            description = "fixed lengths L become uniform in [L(1-R), L(1+R)], as vLLM's random data set's (0 to below 1)")
    Double randomRangeRatio;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "replay a published trace: the Azure LLM inference CSV or the Mooncake JSONL; its times, unless --concurrency")
    Path trace;

    @Option(names = "--prefix-share", paramLabel = "S",
            description = "each prompt's first S x ISL tokens are one system prompt all requests share (0 to below 1)")
    Double prefixShare;

    /**
     * A length as given: a plain token count is checked here, as picocli checks any count (so its error
     * reads as every other token flag's); a distribution is read when the workload is built.
     */
    static final class LengthText implements ITypeConverter<String> {
        @Override
        public String convert(String text) {
            if (text.indexOf(':') < 0) {
                new Tokens().convert(text);
            }
            return text;
        }
    }

    /** The workload, each request checked against the model's context of {@code maxContextTokens}. */
    Workload build(int maxContextTokens) {
        return new WorkloadBuilder().concurrency(concurrency).rate(rate).burstiness(burstiness).requests(requests).warmup(warmup).seed(seed)
                .isl(isl == null ? null : Lengths.parse("--isl", isl)).osl(osl == null ? null : Lengths.parse("--osl", osl))
                .randomRangeRatio(randomRangeRatio).trace(trace == null ? null : TraceFile.read(trace)).prefixShare(prefixShare)
                .build(maxContextTokens);
    }
}
