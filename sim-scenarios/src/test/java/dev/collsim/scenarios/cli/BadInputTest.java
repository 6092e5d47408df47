package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Every bad input: one line on stderr naming the problem, exit code 2, nothing on stdout, no stack trace. */
class BadInputTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "bench all_reduce -b 1X                         | -b '1X'",
        "bench all_reduce -b 1M -e 8                    | -e 8 is below -b 1048576",
        "bench all_reduce -e 4Q                         | -e '4Q'",
        "bench allreduce                                | unknown operation 'allreduce'",
        "bench all_reduce --system dgx-h900             | unknown system 'dgx-h900'",
        "bench all_reduce --gpus-per-node 0             | --gpus-per-node 0",
        "bench all_reduce --gpus-per-node 9             | --gpus-per-node 9: hgx-h100 has 8 GPUs per node",
        "bench all_reduce -g 9                          | -g 9",
        "bench all_reduce -d complex64                  | -d 'complex64': unknown data type",
        "bench all_reduce -o mean                       | -o 'mean'",
        "bench all_reduce --proto fast                  | --proto: unknown protocol 'fast'",
        "bench all_reduce --algo nvlstree               | no allowed algorithm and protocol can run all_reduce here",
        "bench all_reduce --algo warp                   | --algo: unknown algorithm 'warp'",
        "bench all_reduce --channels 65                 | --channels 65",
        "bench broadcast -r 8                           | -r 8",
        "bench all_reduce -f 0                          | -f 0",
        "bench all_reduce --format xml                  | unknown format 'xml'",
        "bench all_reduce --gpus-per-node x             | --gpus-per-node",
        "bench all_reduce --frobnicate                  | Unknown option: '--frobnicate'",
        "bench                                          | Missing required parameter: 'OP'",
        "frobnicate                                     | Unmatched argument",
        "validate --calibration /nonexistent/file.csv   | /nonexistent/file.csv: cannot read",
        "bench all_reduce --nodes 0                     | --nodes 0: expected 1 or more",
        "decode                                         | Missing required option: '--model",
        "decode --model llama-9                         | --model 'llama-9': not a catalogue model",
        "decode --model llama-3-8b --dtype fp2          | --dtype 'fp2': expected bf16, fp8 or fp4",
        "decode --model llama-3-8b --overlap some       | --overlap 'some': expected none, two-batch or fused",
        "decode --model llama-3-8b --allreduce fast     | --allreduce 'fast'",
        "decode --model llama-3-8b --tp 0               | --tp 0: expected 1 or more",
        "decode --model llama-3-8b --ep 2               | --ep 2: llama-3-8b is dense",
        "decode --model mixtral-8x7b --tp 2 --ep 4      | --ep 4: expected tp x dp = 2",
        "decode --model llama-3-8b --pp 33              | --pp 33: llama-3-8b has only 32 layers",
        "decode --model llama-3-8b --tp 16 --nodes 1    | --nodes 1: tp 16 x pp 1 x dp 1 = 16 GPUs need 2 node(s)",
        "decode --model llama-3-8b --tp 3               | --tp 3: llama-3-8b's 32 attention heads do not split evenly over 3 ranks",
        "decode --model deepseek-v3 --dp 12 --ep 12 --dtype fp8 | a group of 12 GPUs on hgx-h100 (8 per node in use) must fit in one node or fill whole nodes",
        "decode --model llama-3.1-405b --tp 8 --batch 32 | needs 103.",
        "decode --model llama-3-8b --cuda-graphs maybe  | --cuda-graphs 'maybe': expected on or off",
        "decode --model llama-3-8b --tp 8 --allreduce nvls --system dgx-a100 | --allreduce nvls: dgx-a100 has no NVLink SHARP",
        "decode --model llama-3-8b --system pcie-4090-8x --tp 8 --dp 2 | pcie-4090-8x has 1 node(s) of 8 GPUs",
        "decode --model llama-3-8b --overlap two-batch  | --batch 1 cannot be split",
        "decode --model llama-3-8b --topology ../topologies/hgx-h100.yaml --fabrics hgx-h100 | --topology describes the whole system",
        "compare --model llama-3-8b --system hgx-h100 --gpus 0 | --gpus 0: expected 1 or more",
        "compare --model llama-3-8b --system hgx-h100 --itl-slo 50 | --itl-slo",
        "compare --model llama-3-8b --system hgx-h900   | unknown system 'hgx-h900'",
        "compare --model llama-3-8b --system pcie-l40s-8x --gpus 16 | --gpus 16: pcie-l40s-8x is one server of 8 GPUs",
        "decode --model llama-3-8b --straggler fast --replications 3 | --straggler 'fast': expected a factor",
        "decode --model llama-3-8b --straggler 0.5 --replications 3 | --straggler 0.5: expected a slowdown factor of at least 1",
        "decode --model llama-3-8b --launch-jitter -1 --replications 3 | --launch-jitter -1.0: expected a coefficient of variation",
        "decode --model llama-3-8b --step-jitter 0.2    | give --replications R",
        "decode --model llama-3-8b --replications 0     | --replications 0: expected 1 to 100000",
        "decode --model llama-3-8b --straggler 2@9 --replications 2 | there are only 1 GPUs",
        "bench all_reduce --outage n0.nic3 --replications 2 | --outage 'n0.nic3': expected A:B@START+DURATION",
        "bench all_reduce --outage gpu0:gpu1@0us+1us --replications 2 | --outage gpu0:gpu1: no connection joins these devices",
        "bench all_reduce --outage random-nic@0us+1us --replications 2 | --outage random-nic: hgx-h100 has no NIC",
        "decode --model llama-3-8b --outage random-nic@0us+1us --replications 2 | --outage takes a link down during a bench collective",
        "decode --model llama-3-8b --fabrics hgx-h100 --replications 2 | --replications summarises many steps",
        "calibrate /nonexistent.log                     | /nonexistent.log: cannot read",
        "calibrate src/test/resources/logs/empty.txt    | no measured all_reduce line",
        "bench all_reduce --overrides /nonexistent.yaml | /nonexistent.yaml: cannot read",
        "bench all_reduce --measured /nonexistent.txt    | /nonexistent.txt: cannot read",
        "topo show --report out.html                    | --report: this run has no HTML report",
        "bench all_reduce --links --report out.html     | --report: this run has no HTML report",
        "bench all_reduce --report out.txt              | --report out.txt: expected a file ending in .html",
        "bench all_reduce --straggler 2 --replications 2 | --straggler slows a GPU's kernels in decode",
        "compare --model llama-3-8b                     | Missing required option: '--system",
        "decode --model llama-3-8b --fabrics hgx-h100@x | --fabrics 'hgx-h100@x': expected SYSTEM or SYSTEM@GPUS_PER_NODE",
        "bench all_reduce --nodes 2 --network fddi      | unknown network 'fddi'",
        "bench all_reduce --nodes 2 --algo nvls         | no allowed algorithm and protocol can run all_reduce",
        "bench all_reduce --algo p2p                    | algorithm P2P cannot run all_reduce",
        "bench all_reduce --algo oneshot,twoshot        | algorithm OneShot,TwoShot cannot run all_reduce",
        "bench all_reduce --nodes 2 --algo collnetdirect | no allowed algorithm and protocol can run all_reduce here (check",
        "bench all_reduce --collnet maybe               | --collnet 'maybe': expected on or off",
        "bench all_reduce --nic-bw 400                  | --nic-bw: '400' has no unit",
        "bench all_reduce --oversubscription 0:1        | --oversubscription '0:1': expected a ratio",
        "bench all_reduce --nodes 256 -b 4G -e 4G --algo ring | this run would simulate about",
        "bench all_reduce --oversubscription :          | --oversubscription ':': expected a ratio such as 2:1",
        "bench all_reduce --oversubscription 1:2        | --oversubscription: expected a ratio of at least 1:1",
        "bench all_reduce --spines 0                    | --spines 0: expected 1 or more",
        "bench all_reduce --gdr sometimes               | --gdr 'sometimes': expected on or off",
        "bench all_reduce --system pcie-l40s-8x --nodes 2 | pcie-l40s-8x is one PCIe server",
        "bench all_reduce --scale warp=2                | --scale 'warp': unknown link class",
        "bench all_reduce --scale nvlink=-1             | --scale 'nvlink=-1': the factor must be a positive number",
        "bench all_reduce --scale nvlink                | --scale 'nvlink': expected CLASS=FACTOR",
        "bench all_reduce --nics-per-gpu 0              | --nics-per-gpu 0: expected 1 or more",
    })
    void badInputIsOneLineAndExitCode2(String args, String expected) {
        CliRunner r = CliRunner.run(args.trim().split("\\s+"));
        assertEquals(2, r.code(), r.err());
        assertEquals("", r.out(), "nothing on stdout");
        String err = r.err().strip();
        assertFalse(err.contains("\n"), "one line: " + err);
        assertTrue(err.startsWith("collsim: "), err);
        assertTrue(err.contains(expected), err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), err);
    }

    @Test
    void malformedCalibrationFileNamesFileAndLine(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("bad.csv");
        Files.writeString(csv, "dataset_id,op,dtype,size_bytes,time_us\nX,all_reduce,float,12ab,3.0\n");
        CliRunner r = CliRunner.run("validate", "--calibration", csv.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(csv + ": line 2: size_bytes '12ab'"), r.err());
    }

    @Test
    void failedOutputLeavesNoFileBehind(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("table.csv");
        CliRunner r = CliRunner.run("bench", "all_reduce", "-b", "1X", "--format", "csv", "--output", out.toString());
        assertEquals(2, r.code());
        assertFalse(Files.exists(out));
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "no temporary file either");
        }
    }
}
