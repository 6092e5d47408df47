package dev.collsim.scenarios.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.decode.Speculation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DecodeValidationTest {
    private static final String HEADER = "row_id,source,date,framework,gpu,system,gpus,nodes,interconnect,model,dtype,tp,pp,ep,dp,"
            + "batch_or_concurrency,batch_kind,isl,osl,cuda_graphs,spec_decode,metric,stat,value,trust,notes\n";

    /** The acceptance on the calibration file: geomean |error| at most 10 %, no row beyond 30 %, bias within 5 %. */
    @Test
    void theCalibrationRunsAreWithinTheirTargets() {
        DecodeValidation v = DecodeValidation.bundled(EngineChoice.AS_MEASURED);
        assertEquals(18, v.simulated().size(), "every calibration row is simulated");
        assertTrue(v.geomeanAbsError() <= 0.10, "geomean |error| " + v.geomeanAbsError());
        assertTrue(Math.abs(v.bias()) <= 0.05, "bias " + v.bias());
        for (DecodeValidation.Outcome o : v.simulated()) {
            assertTrue(Math.abs(o.ratio() - 1) <= 0.30, "row " + o.id() + ": " + o.simulatedMs() + " ms vs " + o.measuredMs());
        }
    }

    /**
     * The Instinct runs, scored apart: every row simulated on its Instinct preset; AMD's own vLLM latency table for Llama-3.1-70B
     * on MI300X (ROCM1-8, AITER's GEMMs) within 30 % at every batch.
     */
    @Test
    void theInstinctRunsAreSimulatedOnTheirPresets() {
        DecodeValidation v = DecodeValidation.bundledInstinct(EngineChoice.AS_MEASURED);
        assertEquals(20, v.simulated().size(), "every Instinct row is simulated");
        for (DecodeValidation.Outcome o : v.simulated()) {
            assertTrue(o.system().startsWith("mi3"), o.id() + " ran on " + o.system());
            if (o.id().matches("ROCM[1-8]")) {
                assertTrue(Math.abs(o.ratio() - 1) <= 0.30, "row " + o.id() + ": " + o.simulatedMs() + " ms vs " + o.measuredMs());
            }
        }
    }

    /** Scores are symmetric in log space and keep the sign apart: 2x slow and 2x fast cancel in the bias, not in the error. */
    @Test
    void aBiasCannotHideInTheError() {
        DecodeValidation v = DecodeValidation.bundled(EngineChoice.AS_MEASURED);
        double logSum = v.simulated().stream().mapToDouble(o -> Math.log(o.ratio())).sum();
        double absSum = v.simulated().stream().mapToDouble(o -> Math.abs(Math.log(o.ratio()))).sum();
        int n = v.simulated().size();
        assertEquals(Math.exp(logSum / n) - 1, v.bias(), 1e-12);
        assertEquals(Math.exp(absSum / n) - 1, v.geomeanAbsError(), 1e-12);
        assertTrue(v.geomeanAbsError() >= Math.abs(v.bias()));
    }

    /**
     * A row becomes a step as the calibration README says; one collsim cannot run is listed with
     * its reason; a request rate becomes a batch by Little's law on the simulated step.
     */
    @Test
    void rowsMapToStepsAndTheRestAreListedWithAReason(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("runs.csv");
        Files.writeString(csv, HEADER
                + "1,s,2026,SGLang 0.5,H200 SXM,hgx,8,1,NVLink,DeepSeek-R1,fp8,8,1,1,1,16,concurrency,1024,8192,on,none,tpot_ms,median,15,A,\n"
                + "2,s,2026,vLLM V1,H100 SXM,hgx,8,1,NVLink,Llama-3.1-70B-Instruct,bf16,8,1,1,1,2,qps,1000,200,on,none,tpot_ms,mean,20,A,\n"
                + "3,s,2026,vLLM V1,Gaudi 3,x,8,1,IF,Llama-3.1-70B,bf16,8,1,1,1,1,batch,1,200,on,none,tpot_ms,mean,20,A,\n"
                + "4,s,2026,Triton,H100 SXM,hgx,8,1,NVLink,Llama-3.1-70B,bf16,8,1,1,1,1,batch,1,200,on,none,tpot_ms,mean,20,A,\n"
                + "5,s,2026,vLLM V1,H100 SXM,hgx,8,1,NVLink,Llama-3.1-70B,bf16,8,1,1,1,1,batch,1,200,on,eagle,tpot_ms,mean,20,A,\n"
                + "6,s,2026,vLLM 0.6.3,A100 SXM,dgx,8,1,NVLink,Llama-3.1-8B,bf16,1,1,1,1,32,batch,1,200,on,none,tok_s_total,mean,1000,A,\n"
                + "7,s,2026,SGLang,H200 SXM,hgx,8,1,NVLink,DeepSeek-R1,fp8,8,1,8,8,256,concurrency,1024,1024,on,none,tpot_ms,median,40,A,\n"
                + "8,s,2026,SGLang,H200 SXM,hgx,4,1,NVLink,Llama-3.1-70B,fp8,8,1,1,1,8,concurrency,1024,1024,on,none,tpot_ms,median,9,A,\n");
        List<DecodeValidation.Outcome> out = DecodeValidation.file(csv, EngineChoice.AS_MEASURED).outcomes();
        assertEquals(8, out.size());
        DecodeValidation.Outcome ds = out.get(0);
        assertNull(ds.skipped());
        assertEquals("sglang", ds.engine());
        assertEquals(16, ds.batch());
        assertEquals(1024 + 4096, ds.context());
        DecodeValidation.Outcome rate = out.get(1);
        assertNull(rate.skipped(), rate.skipped());
        // 2 requests/s for 200 tokens at the simulated step: the sequences in flight.
        assertEquals(Math.round(2 * 200 * rate.simulatedMs() / 1000), rate.batch(), 1.0);
        assertTrue(out.get(2).skipped().contains("no preset system"), out.get(2).skipped());
        assertTrue(out.get(3).skipped().contains("not one of the engines"), out.get(3).skipped());
        assertTrue(out.get(4).skipped().contains("speculative decoding"), out.get(4).skipped());
        DecodeValidation.Outcome old = out.get(5);
        assertEquals("vllm-v0", old.engine());
        assertEquals(32 * 1000.0 / 1000, old.measuredMs(), 1e-9, "32 sequences at 1,000 tokens/s: a step of 32 ms");
        assertEquals(0, old.prefillMs(), "a static batch prefills once, before its steps");
        assertTrue(ds.prefillMs() > 0, "a serving step carries its share of the arriving prompts");
        DecodeValidation.Outcome dpAttention = out.get(6);
        assertNull(dpAttention.skipped(), dpAttention.skipped());
        assertEquals("tp1 ep8 dp8", dpAttention.layout(), "SGLang's --tp 8 --dp 8 on 8 GPUs is attention TP 1 in 8 replicas");
        assertEquals(32, dpAttention.batch(), "256 concurrent requests over 8 replicas");
        assertTrue(out.get(7).skipped().contains("needs more GPUs than the row's 4"), out.get(7).skipped());
    }

    /**
     * A time to first token is the prefill of the row's prompts on its layout, as collsim prefill
     * simulates it; in seconds or ms; under load (concurrency above one a replica) it is listed, not simulated.
     */
    @Test
    void timesToFirstTokenArePrefillsOfTheRowsPrompts(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("ttft.csv");
        Files.writeString(csv, HEADER
                + "t1,s,2024,TensorRT-LLM 0.9.0,H100 SXM,hgx,8,1,NVLink,Llama-3-70B,fp8,8,1,1,1,1,batch,2048,1,n/a,none,ttft_ms,mean,85,A,\n"
                + "t2,s,2024,TensorRT-LLM 0.9.0,H100 SXM,hgx,8,1,NVLink,Llama-3-70B,fp8,8,1,1,1,1,batch,2048,1,n/a,none,ttft_s,mean,0.085,A,\n"
                + "t3,s,2024,SGLang,H100 SXM,hgx,8,1,NVLink,Llama-3-70B,fp8,8,1,1,1,4,concurrency,2048,1024,on,none,ttft_ms,median,90,B,\n"
                + "t4,s,2024,TensorRT-LLM 0.9.0,H100 SXM,hgx,8,1,NVLink,Llama-3-70B,fp8,8,1,1,1,4,batch,2048,1,n/a,none,ttft_ms,mean,300,A,\n"
                + "t5,s,2024,SGLang,H100 SXM,hgx,8,1,NVLink,Llama-3-70B,fp8,8,1,1,1,4,batch,2048,1,n/a,none,prefill_tok_s_per_gpu,mean,4096,B,\n"
                + "t6,s,2024,TensorRT-LLM 0.9.0,H100 SXM,hgx,8,1,NVLink,Llama-3-70B,fp8,8,1,1,1,1,batch,2048,1,n/a,none,ttft_ms,mean,85,B,\n");
        DecodeValidation v = DecodeValidation.file(csv, EngineChoice.AS_MEASURED);
        List<DecodeValidation.Outcome> out = v.outcomes();
        assertTrue(v.simulated().isEmpty(), "no decode rows");
        assertEquals(5, v.simulatedTtft().size());
        DecodeValidation.Outcome one = out.get(0);
        assertTrue(one.ttft());
        dev.collsim.scenarios.decode.DecodeSpec layout = new dev.collsim.scenarios.decode.DecodeSpec(
                dev.collsim.scenarios.decode.ModelConfig.load("llama-3-70b"), dev.collsim.scenarios.decode.DecodeSystem.preset("hgx-h100"),
                java.util.OptionalInt.empty(), 8, 1, 1, 1, 1, 2048, dev.collsim.scenarios.decode.Precision.FP8,
                dev.collsim.scenarios.decode.AllReduceKind.AUTO, dev.collsim.scenarios.decode.Overlap.NONE, false, ServingEngine.TRTLLM, null, null);
        assertEquals(dev.collsim.scenarios.decode.Prefill.run(layout, 2048, 1, 0).ttft().ms(), one.simulatedMs(), 1e-9);
        assertEquals(85, out.get(1).measuredMs(), 1e-9, "0.085 s");
        assertEquals(one.simulatedMs(), out.get(1).simulatedMs(), 0);
        assertTrue(out.get(2).skipped().contains("waits behind other requests"), out.get(2).skipped());
        assertEquals(4, out.get(3).batch());
        assertTrue(out.get(3).simulatedMs() > 3 * one.simulatedMs(), "four prompts in one forward take about four times one");
        // 4 prompts of 2,048 tokens at 4,096 tokens/s on each of 8 GPUs: a forward of 250 ms.
        assertEquals(4 * 2048 / (4096.0 * 8) * 1000, out.get(4).measuredMs(), 1e-9);
        assertEquals("sglang", out.get(4).engine());
        assertEquals(out.get(4).prefillMs(), out.get(4).simulatedMs(), 0, "a prefill rate is the forwards' alone, even measured at a client");
        // Measured at a client (trust B), a TTFT also holds the server's time per request beyond the forwards.
        assertEquals(one.simulatedMs() + ServingEngine.TRTLLM.requestMs(), out.get(5).simulatedMs(), 1e-9);
        assertEquals(one.simulatedMs(), out.get(5).prefillMs(), 1e-9);
        DecodeValidation zero = DecodeValidation.file(csv, new EngineChoice(null, 0.0));
        assertEquals(one.simulatedMs(), zero.outcomes().get(5).simulatedMs(), 1e-9, "--request-overhead 0 leaves it out");
        List<dev.collsim.reports.Table> tables = dev.collsim.scenarios.views.DecodeValidationView.tables(v, "ttft.csv");
        assertEquals(2, tables.size(), "no decode tables without decode rows");
        assertEquals(3, tables.get(0).rows().size(), "all, then trust A and trust B apart");
    }

    /**
     * The framework column names the engine: vLLM from 0.8 is V1 (0.9.1 is not "v0"), a Dynamo row without its backend
     * TensorRT-LLM, TensorRT-LLM's C++ benchmarks its TensorRT backend.
     */
    @Test
    void frameworksNameTheirEngines() {
        assertEquals(ServingEngine.VLLM, DecodeValidation.engineFor("vLLM v0.9.1"));
        assertEquals(ServingEngine.VLLM, DecodeValidation.engineFor("vLLM V1 (main, July 2025)"));
        assertEquals(ServingEngine.VLLM_V0, DecodeValidation.engineFor("vLLM 0.7.2 (torch 2.5)"));
        assertEquals(ServingEngine.VLLM_V0, DecodeValidation.engineFor("vLLM V0 engine"));
        assertEquals(ServingEngine.SGLANG, DecodeValidation.engineFor("Dynamo (SGLang backend)"));
        assertEquals(ServingEngine.TRTLLM, DecodeValidation.engineFor("NVIDIA Dynamo"));
        assertEquals(ServingEngine.LMDEPLOY, DecodeValidation.engineFor("LMDeploy v0.1.0a1 (TurboMind)"));
        assertEquals(ServingEngine.TRTLLM_TENSORRT, DecodeValidation.engineFor("TensorRT-LLM 0.9.0 (gptSessionBenchmark)"));
        assertEquals(ServingEngine.TRTLLM, DecodeValidation.engineFor("TensorRT-LLM v0.21.0rc2 (PyTorch backend, trtllm-serve)"));
        assertNull(DecodeValidation.engineFor("llama.cpp"));
        assertEquals("concurrency", DecodeValidation.loadKind("max_concurrency"));
        assertEquals("qps", DecodeValidation.loadKind("request rate"));
    }

    @Test
    void forcingAnEngineRunsEveryRowUnderIt() {
        DecodeValidation v = DecodeValidation.bundled(new EngineChoice(ServingEngine.TRTLLM, null));
        assertTrue(v.simulated().stream().allMatch(o -> o.engine().equals("trtllm")));
    }

    @Test
    void aBadCsvIsOneLineNamingTheFileAndField(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("bad.csv");
        Files.writeString(csv, HEADER
                + "1,s,2026,SGLang,H200,hgx,8,1,NVLink,DeepSeek-R1,fp8,eight,1,1,1,16,concurrency,1024,8192,on,none,tpot_ms,median,15,A,\n");
        InputException e = assertThrows(InputException.class, () -> DecodeValidation.file(csv, EngineChoice.AS_MEASURED));
        assertTrue(e.getMessage().startsWith(csv + ": line 2: tp 'eight': expected a positive number"), e.getMessage());
        Files.writeString(csv, "row_id,model\n");
        e = assertThrows(InputException.class, () -> DecodeValidation.file(csv, EngineChoice.AS_MEASURED));
        assertTrue(e.getMessage().contains("no rows"), e.getMessage());
    }

    /**
     * A row's spec_decode column: none, or a method and its drafts with the acceptance its source states, as a length (the
     * tokens a step keeps) or vLLM's rate (the share of drafts accepted: 81 % of one draft is 1.81 tokens a step), in the
     * column or else in the notes; a method without an acceptance is not simulated.
     */
    @Test
    void speculativeDecodingIsReadWithItsStatedAcceptance() {
        assertEquals(Speculation.NONE, SpecDecodeColumn.read("none", "accept 2"));
        assertEquals(Speculation.NONE, SpecDecodeColumn.read(" ", null));
        assertEquals(new Speculation(Speculation.Method.MTP, 3, 2.4), SpecDecodeColumn.read("mtp:3 accept 2.4", null));
        assertEquals(new Speculation(Speculation.Method.EAGLE, 4, 3.1), SpecDecodeColumn.read("EAGLE3:4 acceptance length=3.1", null));
        assertEquals(new Speculation(Speculation.Method.MTP, 1, 1.9), SpecDecodeColumn.read("mtp:1@1.9", null));
        assertEquals(new Speculation(Speculation.Method.MTP, 1, 1.81), SpecDecodeColumn.read("nextn, num_speculative_tokens=1", "acceptance rate 81%"));
        assertEquals(new Speculation(Speculation.Method.MTP, 3, 2.2), SpecDecodeColumn.read("MTP-3", "DERIVED; accept_len 2.2"));
        assertEquals(new Speculation(Speculation.Method.EAGLE, 3, 2.5), SpecDecodeColumn.read("eagle speculative-num-steps 3", "acceptance rate 0.5"));
        InputException e = assertThrows(InputException.class, () -> SpecDecodeColumn.read("mtp:3", "fp8 weights"));
        assertTrue(e.getMessage().contains("without an acceptance collsim can read"), e.getMessage());
        e = assertThrows(InputException.class, () -> SpecDecodeColumn.read("mtp:3 accept 5", null));
        assertTrue(e.getMessage().startsWith("speculative decoding 'mtp:3 accept 5': --accept 5: expected tokens a step from 1 to"), e.getMessage());
        e = assertThrows(InputException.class, () -> SpecDecodeColumn.read("eagle3 accept 2.5", null));
        assertTrue(e.getMessage().contains("and its draft tokens a step"), "eagle3's 3 is no draft count: " + e.getMessage());
        e = assertThrows(InputException.class, () -> SpecDecodeColumn.read("medusa", null));
        assertTrue(e.getMessage().contains("expected a method (mtp, nextn, eagle, eagle3)"), e.getMessage());
    }
}
