package dev.collsim.scenarios.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.load.Deployment;
import dev.collsim.scenarios.load.Distribution;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadSpec;
import dev.collsim.scenarios.load.workload.RequestSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** validate --serving on a fake simulation: the mapping of rows to loads, the grouping, the reasons and the scores. */
class ServingValidationTest {
    private static final String HEADER = "row_id,source,date,framework,gpu,system,gpus,nodes,interconnect,model,dtype,tp,pp,ep,dp,"
            + "batch_or_concurrency,batch_kind,isl,osl,cuda_graphs,spec_decode,metric,stat,value,trust,notes,mode,prefill_workers,prefill_tp,"
            + "prefill_pp,prefill_ep,prefill_dp,prefill_batch,decode_workers,decode_tp,decode_pp,decode_ep,decode_dp,decode_batch\n";
    private static final String H100 = "H100 SXM 80GB,8-GPU HGX H100 node";
    private static final String NO_ROLES = "agg,,,,,,,,,,,,";

    /** A row of the calibration file's shape: everything up to the mode, then the mode and the roles' twelve columns. */
    private static String row(String id, String framework, String gpuAndSystem, int gpus, String model, String dtype, String layout, int conc,
                              int isl, int osl, String metric, String stat, double value, String modeAndRoles) {
        return id + ",src,2026," + framework + "," + gpuAndSystem + "," + gpus + ",,," + model + "," + dtype + "," + layout + "," + conc
                + ",concurrency," + isl + "," + osl + ",n/a,none," + metric + "," + stat + "," + value + ",A,," + modeAndRoles + "\n";
    }

    /**
     * A simulation that needs no engine: every request's TTFT is 100, 200, 300, 400, 500 ms times the
     * concurrency, TPOT a tenth of that, ITL a hundredth, E2EL ten times, output 1,000 tokens/s a request in flight.
     */
    private static LoadOutcome fake(LoadSpec spec) {
        int c = spec.workload().concurrency();
        double[] base = {100, 200, 300, 400, 500};
        return new LoadOutcome(null, new LoadOutcome.Summary(10 * c, 0, 1, 0, 0, 0, null, 1000.0 * c, 0, spec.deployment().gpus(),
                scaled(base, c), scaled(base, c / 10.0), scaled(base, c / 100.0), scaled(base, c * 10.0), 0, 0, c), List.of(), List.of(), List.of());
    }

    private static Distribution scaled(double[] base, double by) {
        double[] v = new double[base.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = base[i] * by;
        }
        return Distribution.of(v);
    }

    /** Runs the fake, keeping the loads it was given in the order they came. */
    private static final class Recorder implements Function<LoadSpec, LoadOutcome> {
        final List<LoadSpec> specs = Collections.synchronizedList(new ArrayList<>());

        @Override
        public LoadOutcome apply(LoadSpec spec) {
            specs.add(spec);
            return fake(spec);
        }
    }

    private static ServingValidation validate(Path dir, String rows, Function<LoadSpec, LoadOutcome> runner, int threads) throws Exception {
        Path csv = dir.resolve("runs.csv");
        Files.writeString(csv, HEADER + rows);
        return ServingValidation.file(csv, EngineChoice.AS_MEASURED, runner, threads, (done, total) -> { });
    }

    /**
     * The scheduler as aiconfigurator's generator deploys each engine: a step's tokens ISL + 1,500, plus an aggregated vLLM
     * or TensorRT-LLM replica's batch (the requests in flight per DP replica), TensorRT-LLM's rounded up to its 32-token
     * blocks; SGLang's aggregated prompt chunks mixed into its decode steps; padding on.
     */
    @Test
    void eachRunGetsTheSchedulerAiconfiguratorDeployedItWith() {
        ServingRow.Role tp8 = new ServingRow.Role(1, 8, 1, 1, 1, 0);
        ServingRow.Run vllm = new ServingRow.Run("vLLM 0.19.0", "H100", "", 8, "m", "fp8", "agg", tp8, null, null, 64, "concurrency", 1024, 1024, null, null);
        var k = ServingValidation.knobs(vllm, ServingEngine.VLLM, ServingValidation.deployment(vllm), 64);
        assertEquals(64 + 1024 + 1500, k.maxNumBatchedTokens());
        assertEquals(Boolean.TRUE, k.graphPadding());
        assertNull(k.mixedChunk(), "vLLM always mixes: its default stands");
        ServingRow.Role dp4 = new ServingRow.Role(1, 4, 1, 4, 4, 0);
        ServingRow.Run attentionDp = new ServingRow.Run("vLLM", "H100", "", 4, "m", "fp8", "agg", dp4, null, null, 30, "concurrency", 8192, 1024, null, null);
        assertEquals(8 + 8192 + 1500, ServingValidation.knobs(attentionDp, ServingEngine.VLLM, ServingValidation.deployment(attentionDp), 30)
                .maxNumBatchedTokens(), "30 in flight over 4 DP replicas: a batch of 8 each");
        assertEquals(2560 + 32, ServingValidation.knobs(vllm, ServingEngine.TRTLLM, ServingValidation.deployment(vllm), 64).maxNumBatchedTokens(),
                "2,588 rounded up to TensorRT-LLM's 32-token blocks");
        var sglang = ServingValidation.knobs(vllm, ServingEngine.SGLANG, ServingValidation.deployment(vllm), 64);
        assertEquals(1024 + 1500, sglang.maxNumBatchedTokens(), "SGLang's max_prefill_tokens: no batch in it");
        assertEquals(Boolean.TRUE, sglang.mixedChunk());
        ServingRow.Run disagg = new ServingRow.Run("SGLang", "H100", "", 16, "m", "fp8", "disagg", null, new ServingRow.Role(1, 8, 1, 1, 1, 1),
                new ServingRow.Role(1, 8, 1, 1, 1, 4096), 64, "concurrency", 1024, 1024, null, null);
        var split = ServingValidation.knobs(disagg, ServingEngine.SGLANG, ServingValidation.deployment(disagg), 64);
        assertEquals(4096, split.maxNumBatchedTokens(), "a decode worker takes its whole batch");
        assertNull(split.mixedChunk(), "a disaggregated instance runs one kind of step");
    }

    /** agg is one instance of the row's layout; disagg the prefill and decode workers with each role's layout and batch, as serve prints them. */
    @Test
    void aggAndDisaggRowsBecomeTheDeploymentsServePrints(@TempDir Path dir) throws Exception {
        Recorder r = new Recorder();
        ServingValidation v = validate(dir, row("1T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES)
                + row("2T", "SGLang 0.5.8", H100, 32, "DeepSeek-R1", "fp8", "1,1,1,1", 64, 8192, 1024, "ttft_ms", "mean", 900,
                        "disagg,1,16,1,16,1,,1,16,1,16,1,")
                + row("3T", "TensorRT-LLM 0.8.1.post3", H100, 64, "DeepSeek-V3", "fp8", "1,1,1,1", 6, 8192, 1024, "ttft_ms", "mean", 13000,
                        "disagg,1,1,1,16,16,1,3,16,1,16,1,2")
                + row("4T", "vLLM 0.18.0", H100, 16, "DeepSeek-V3", "fp8", "4,1,16,4", 32, 1024, 1024, "ttft_ms", "mean", 90, NO_ROLES), r, 1);
        assertEquals(List.of("tp8", "1P tp16 ep16 + 1D tp16 ep16", "1P tp1 dp16 ep16 b1 + 3D tp16 ep16 b2", "tp4 dp4 ep16"),
                v.outcomes().stream().map(ServingValidation.Outcome::deployment).toList());
        assertEquals(List.of("vllm", "sglang", "trtllm", "vllm"), v.outcomes().stream().map(ServingValidation.Outcome::engine).toList());
        v.outcomes().forEach(o -> assertNull(o.skipped(), o.skipped()));
        assertEquals(4, r.specs.size());
        for (LoadSpec spec : r.specs) {
            assertEquals(spec.deployment(), Deployment.parse(spec.deployment().label()), "the label pastes back into serve --deployment");
            assertEquals("hgx-h100", spec.system().name());
            assertTrue(spec.system() instanceof DecodeSystem.Preset);
            assertEquals(Precision.FP8, spec.precision());
            assertEquals(0, spec.seed());
        }
        LoadSpec llama = r.specs.stream().filter(s -> !s.deployment().disaggregated() && s.deployment().gpus() == 8).findFirst().orElseThrow();
        assertTrue(llama.model().name().toLowerCase(java.util.Locale.ROOT).contains("70b"), llama.model().name());
        assertEquals(ServingEngine.VLLM, llama.engine().engine());
        assertEquals(131_072, llama.model().maxContext(), "Llama 3.1's window, so a prompt of 8,192 and 1,024 out fits");
        // A closed loop of 16: 2 x 16 warm-up and 10 x 16 measured requests, every one 1,024 in and 1,024 out.
        assertEquals(16, llama.workload().concurrency());
        assertEquals(12 * 16, llama.workload().requests().size());
        assertEquals(2 * 16, llama.workload().warmup());
        for (RequestSpec q : llama.workload().requests()) {
            assertEquals(1024, q.isl());
            assertEquals(1024, q.osl());
        }
        Deployment.Role decode = r.specs.stream().filter(s -> s.deployment().gpus() == 64).findFirst().orElseThrow().deployment()
                .role(Deployment.Kind.DECODE);
        assertEquals(3, decode.instances());
        assertEquals(2, decode.maxBatch());
    }

    /** The GPU column picks the preset: a B300 is an HGX B300 board, a GB300 the NVL72 rack; a GPU without one, none. */
    @Test
    void gpusMapToTheirPresets() {
        assertEquals("hgx-b300", DecodeValidation.systemFor("B300 SXM 288GB"));
        assertEquals("gb300-nvl72", DecodeValidation.systemFor("GB300 NVL72 GB300 288GB"));
        assertEquals("hgx-b200", DecodeValidation.systemFor("8x B200 180GB"));
        assertEquals("pcie-rtxpro6000-8x", DecodeValidation.systemFor("RTX PRO 6000 96GB"));
        assertNull(DecodeValidation.systemFor("Gaudi 3 128GB"));
        assertEquals("mi355x-8x", DecodeValidation.systemFor("MI355X 288GB OAM"));
    }

    /** vLLM overlaps its host with the GPU by default from 0.14.0 on (not with pipeline stages); older runs keep the engine's default. */
    @Test
    void vllmRunsFromFourteenOnScheduleAsynchronously() {
        Deployment flat = new Deployment(List.of(new Deployment.Role(Deployment.Kind.AGGREGATED, 1, 4, 1, 1, 1, 64, 0, 0,
                dev.collsim.scenarios.decode.Overlap.NONE, null)));
        Deployment staged = new Deployment(List.of(new Deployment.Role(Deployment.Kind.AGGREGATED, 1, 4, 2, 1, 1, 64, 0, 0,
                dev.collsim.scenarios.decode.Overlap.NONE, null)));
        assertEquals(Boolean.TRUE, ServingValidation.overlapSchedulerFor("vLLM 0.18.0", ServingEngine.VLLM, flat));
        assertEquals(Boolean.TRUE, ServingValidation.overlapSchedulerFor("vLLM 0.14.0", ServingEngine.VLLM, flat));
        assertNull(ServingValidation.overlapSchedulerFor("vLLM 0.11.2", ServingEngine.VLLM, flat));
        assertNull(ServingValidation.overlapSchedulerFor("vLLM", ServingEngine.VLLM, flat), "no version: the engine's default");
        assertNull(ServingValidation.overlapSchedulerFor("vLLM 0.18.0", ServingEngine.VLLM, staged));
        assertNull(ServingValidation.overlapSchedulerFor("SGLang 0.5.8", ServingEngine.SGLANG, flat));
    }

    @Test
    void theMetricRowsOfARunShareOneSimulation(@TempDir Path dir) throws Exception {
        Recorder r = new Recorder();
        ServingValidation v = validate(dir,
                row("1T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 4, 1024, 1024, "ttft_ms", "mean", 1200, NO_ROLES)
                + row("1P", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 4, 1024, 1024, "tpot_ms", "mean", 120, NO_ROLES)
                + row("1I", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 4, 1024, 1024, "itl_ms", "p99", 20, NO_ROLES)
                + row("1E", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 4, 1024, 1024, "e2el_ms", "median", 12000, NO_ROLES)
                + row("1O", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 4, 1024, 1024, "output_tok_s", "mean", 4000, NO_ROLES)
                + row("1N", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 4, 1024, 1024, "ttft_ms", "p90", 1800, NO_ROLES)
                + row("2T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 8, 1024, 1024, "ttft_ms", "mean", 2400, NO_ROLES), r, 2);
        assertEquals(2, r.specs.size(), "two runs: concurrency 4 and 8");
        assertEquals(2, v.runs());
        assertEquals(2, v.simulatedRuns());
        List<Double> sim = v.outcomes().stream().map(ServingValidation.Outcome::simulated).toList();
        // Concurrency 4: TTFT 400..2000 ms (mean 1200, p90 1840), TPOT mean 120, ITL p99 0.04 x 496, E2EL median 12000, 4000 tokens/s.
        assertEquals(1200, sim.get(0), 1e-9);
        assertEquals(120, sim.get(1), 1e-9);
        assertEquals(0.04 * 496, sim.get(2), 1e-9);
        assertEquals(12000, sim.get(3), 1e-9);
        assertEquals(4000, sim.get(4), 1e-9);
        assertEquals(1840, sim.get(5), 1e-9, "numpy's p90 of 400, 800, 1200, 1600, 2000");
        assertEquals(2400, sim.get(6), 1e-9);
    }

    /** A row that cannot run is listed with its reasons, never dropped; one unreadable config.json is its own rows' reason only. */
    @Test
    void rowsThatCannotRunAreListedWithTheirReasons(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("models"));
        Files.writeString(dir.resolve("models/broken-1b.json"), "{\"architectures\": [\"BrokenForCausalLM\"], \"num_hidden_layers\": 2}");
        ServingValidation v = validate(dir,
                row("1T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES)
                + row("2T", "vLLM", H100, 8, "Unknown-9000B", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES)
                + row("3T", "SGLang", "Gaudi 3 128GB,8-GPU Gaudi 3 node", 8, "DeepSeek-V3", "fp4", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean",
                        80, NO_ROLES)
                + row("4T", "vLLM", H100, 8, "broken-1b", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES)
                + row("4P", "vLLM", H100, 8, "broken-1b", "fp8", "8,1,1,1", 16, 1024, 1024, "tpot_ms", "mean", 8, NO_ROLES)
                + row("5T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 999, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES)
                + row("6T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "p42x", 80, NO_ROLES)
                + row("7T", "vLLM", H100, 4, "Llama-3.1-70B", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES)
                + row("8T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 32, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES), fake(), 2);
        List<ServingValidation.Outcome> out = v.outcomes();
        assertEquals(9, out.size(), "every row listed");
        assertNull(out.get(0).skipped());
        assertTrue(out.get(1).skipped().contains("model 'Unknown-9000B' is neither in the catalogue nor a config.json under models/"),
                out.get(1).skipped());
        assertTrue(out.get(2).skipped().contains("GPU 'Gaudi 3 128GB' has no preset system"), out.get(2).skipped());
        assertEquals("Gaudi 3 128GB", out.get(2).system(), "a GPU without a preset is shown by its name");
        for (int i : new int[] {3, 4}) {
            assertTrue(out.get(i).skipped().startsWith("model 'broken-1b': "), out.get(i).skipped());
            assertTrue(out.get(i).skipped().contains("broken-1b.json"), out.get(i).skipped());
        }
        assertEquals("deployment 'tp8': does not fit", out.get(5).skipped(), "the simulation's refusal is the run's reason");
        assertTrue(out.get(6).skipped().startsWith("stat 'p42x': expected one of mean, median, p90, p99 or pNN"), out.get(6).skipped());
        assertTrue(out.get(7).skipped().contains("the row's 4 GPUs are not the deployment's 8"), out.get(7).skipped());
        assertNull(out.get(8).skipped(), "the rows after an unreadable config.json still run");
        assertEquals(2, v.simulated().size());
        assertThrows(UnsupportedOperationException.class, () -> v.outcomes().add(out.get(0)));
    }

    private static Function<LoadSpec, LoadOutcome> fake() {
        return spec -> {
            if (spec.workload().concurrency() == 999) {
                throw new InputException("deployment 'tp8': does not fit");
            }
            return fake(spec);
        };
    }

    /** A file with a mode that is neither agg nor disagg, or a disagg row without its roles, is refused: one line naming file, line and field. */
    @Test
    void badServingCsvsAreOneLineNamingFileLineAndField(@TempDir Path dir) {
        Path csv = dir.resolve("runs.csv");
        InputException mode = assertThrows(InputException.class, () -> validate(dir,
                row("1T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean", 80, NO_ROLES)
                + row("2T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 16, 1024, 1024, "ttft_ms", "mean", 80, "hybrid,,,,,,,,,,,,"),
                ServingValidationTest::fake, 1));
        assertEquals(csv + ": line 3: mode 'hybrid': expected agg (one instance: tp, pp, ep, dp) or disagg (the prefill_* and decode_* columns)",
                mode.getMessage());
        InputException roles = assertThrows(InputException.class, () -> validate(dir,
                row("1T", "SGLang", H100, 32, "DeepSeek-R1", "fp8", "1,1,1,1", 16, 8192, 1024, "ttft_ms", "mean", 80, "disagg,1,16,1,16,1,,1,,1,16,1,"),
                ServingValidationTest::fake, 1));
        assertTrue(roles.getMessage().startsWith(csv + ": line 2: missing 'decode_tp': a disagg row gives each role's workers and tp"),
                roles.getMessage());
        InputException noMode = assertThrows(InputException.class, () -> ServingValidation.read(new java.io.StringReader(
                "row_id,framework,gpu,model,dtype,batch_or_concurrency,batch_kind,isl,osl,metric,stat,value\n"
                        + "1,vLLM,H100,llama-3-70b,fp8,4,concurrency,1024,1024,ttft_ms,mean,80\n"), "old.csv"));
        assertEquals("old.csv: line 2: missing 'mode'", noMode.getMessage());
        for (InputException e : List.of(mode, roles, noMode)) {
            assertFalse(e.getMessage().contains("\n"), "one line");
        }
    }

    /**
     * The scores by hand: TTFT 2x slow on one run and 2x fast on the other is 100 % geomean |error| and
     * no bias; TPOT 25 % slow and exact is sqrt(1.25) - 1 both ways. Groups split by system, engine and mode.
     */
    @Test
    void scoresAreGeomeanAbsoluteErrorAndSignedBias(@TempDir Path dir) throws Exception {
        // The fake's mean TTFT at concurrency 1 is 300 ms and its mean TPOT 30 ms.
        ServingValidation v = validate(dir,
                row("1T", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 1, 1024, 1024, "ttft_ms", "mean", 150, NO_ROLES)
                + row("1P", "vLLM", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 1, 1024, 1024, "tpot_ms", "mean", 24, NO_ROLES)
                + row("2T", "SGLang", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 1, 1024, 1024, "ttft_ms", "mean", 600, NO_ROLES)
                + row("2P", "SGLang", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", 1, 1024, 1024, "tpot_ms", "mean", 30, NO_ROLES)
                + row("3T", "vLLM", "Gaudi 3 128GB,8-GPU Gaudi 3 node", 8, "DeepSeek-V3", "fp8", "8,1,1,1", 1, 1024, 1024, "ttft_ms", "mean", 1,
                        NO_ROLES), ServingValidationTest::fake, 3);
        ServingValidation.Group ttft = v.overall("ttft_ms", "mean");
        assertEquals(3, ttft.rows().size());
        assertEquals(1, ttft.skipped());
        assertEquals(1.0, ttft.geomeanAbsError(), 1e-12);
        assertEquals(0.0, ttft.bias(), 1e-12);
        ServingValidation.Group tpot = v.overall("tpot_ms", "mean");
        assertEquals(Math.sqrt(1.25) - 1, tpot.geomeanAbsError(), 1e-12);
        assertEquals(Math.sqrt(1.25) - 1, tpot.bias(), 1e-12);
        assertEquals("1P", tpot.worst().row().id());
        List<ServingValidation.Group> groups = v.groups();
        assertEquals(List.of("ttft_ms Gaudi 3 128GB vllm agg", "ttft_ms hgx-h100 sglang agg", "ttft_ms hgx-h100 vllm agg", "ttft_ms all",
                "tpot_ms hgx-h100 sglang agg", "tpot_ms hgx-h100 vllm agg", "tpot_ms all"),
                groups.stream().map(g -> g.metric() + " " + (g.system() == null ? "all" : g.system() + " " + g.engine() + " " + g.mode())).toList());
        ServingValidation.Group sglang = groups.get(1);
        assertEquals(1.0, sglang.geomeanAbsError(), 1e-12);
        assertEquals(-0.5, sglang.bias(), 1e-12, "300 ms simulated against 600 measured: half");
        assertTrue(Double.isNaN(groups.get(0).geomeanAbsError()), "nothing simulated is no score, not a perfect one");
    }

    /** Runs simulated at once come back in the file's order: the same outcomes at 1 and 4 threads. */
    @Test
    void threadsDoNotChangeTheOutcome(@TempDir Path dir) throws Exception {
        StringBuilder rows = new StringBuilder();
        for (int c = 1; c <= 12; c++) {
            rows.append(row(c + "T", c % 2 == 0 ? "vLLM" : "SGLang", H100, 8, "Llama-3.1-70B", "fp8", "8,1,1,1", c, 1024, 1024, "ttft_ms", "mean",
                    100 * c + 7, NO_ROLES));
        }
        ServingValidation one = validate(dir, rows.toString(), ServingValidationTest::fake, 1);
        ServingValidation four = validate(dir, rows.toString(), ServingValidationTest::fake, 4);
        assertEquals(one.outcomes(), four.outcomes());
        assertEquals(12, one.simulated().size());
    }
}
