package dev.collsim.scenarios.cli;

import dev.collsim.core.input.Require;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Prefill;
import dev.collsim.scenarios.decode.PrefillResult;
import dev.collsim.scenarios.views.PrefillHtml;
import dev.collsim.scenarios.views.PrefillJson;
import dev.collsim.scenarios.views.PrefillReport;
import dev.collsim.scenarios.views.TraceWriter;
import dev.collsim.topologies.systems.SystemPreset;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code collsim prefill}: the time to first token of a batch of prompts, and its KV cache's move to a decode instance. */
@Command(name = "prefill", mixinStandardHelpOptions = true,
        description = {"Simulates the prefill of --batch prompts of --isl tokens, layer by layer, and the move of their KV cache.",
            "Every prompt token is a row of the GEMMs, attention is causal over the prompt and the collectives run at prefill sizes on",
            "the system; whole, or in --chunk tokens per forward. It prints the time to first token and each layer's time, the KV",
            "cache it leaves, and what sending that cache to a decode instance of the same layout takes over the network and over",
            "NVLink, after the prefill and layer by layer."})
public final class PrefillCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Mixin
    SystemFlag system;

    @Mixin
    NetworkFlag network;

    @Mixin
    LayoutOptions layout;

    @Option(names = "--isl", paramLabel = "TOKENS", converter = Tokens.class, required = true, description = "prompt tokens per request")
    int isl;

    @Option(names = "--chunk", paramLabel = "TOKENS", converter = Tokens.class, defaultValue = "0",
            description = "tokens per forward (chunked prefill); 0, the default: the whole prompt at once")
    int chunk;

    @Mixin
    EngineOptions engineOptions;

    @Mixin
    RequestOverheadFlag requestOverhead;

    @Mixin
    WhatIfOptions whatIf;

    @OutputFile
    @Option(names = "--trace", paramLabel = "FILE", description = "also write the last forward as a Perfetto (Chrome trace-event) JSON file")
    Path trace;

    @Mixin
    ReportOptions output;

    @Override
    public Integer call() {
        String systemName = system.name();
        Require.atLeastOne("--isl", isl);
        EngineSetup engine = engineOptions.setup().withRequestOverhead(requestOverhead.orEngines());
        DecodeSystem where = new DecodeSystem.Preset(SystemPreset.byName(systemName),
                network.preset(), OptionalInt.empty(), whatIf.toWhatIf());
        int tp = layout.tp;
        int ep = layout.ep;
        // EP wider than TP spreads the experts over attention DP replicas; narrower, each expert splits over tp / ep ranks.
        int dp = ep > tp ? ep / tp : 1;
        layout.checkMoeTp(dp);
        engine.experts().check(model.config(), ep);
        DecodeSpec instance = engine.layout(model.config(), where, tp, layout.pp, ep, dp, 1, isl, model.weights(),
                Overlap.NONE);
        PrefillResult result = Prefill.run(instance, isl, layout.batch, chunk);
        if (trace != null) {
            RunFiles.current().write(trace, TraceWriter.json(result.lastForward()));
        }
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport("collsim prefill " + result.setup().model());
            PrefillHtml.add(report, result, engine.requestMs());
            return report;
        });
        output.emitResult(() -> PrefillJson.of(result, engine.requestMs()), PrefillReport.table(result, engine.requestMs()),
                spec.commandLine().getOut());
        return 0;
    }
}
