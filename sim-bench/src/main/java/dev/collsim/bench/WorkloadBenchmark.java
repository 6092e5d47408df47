package dev.collsim.bench;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.scenarios.cli.Main;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Whole workloads, warm (JIT-compiled), without the JVM's start: one collective (a ring all_reduce of
 * 64 MiB, Simple, on one HGX H100 node) and one decode step (Llama-3-70B, TP 8, batch 32, through the
 * command line with a fresh collective cache, as a process would run it). The whole-process times
 * are in docs/performance.md. Run: {@code java -jar sim-bench/target/benchmarks.jar WorkloadBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class WorkloadBenchmark {
    Communicator node;
    Plan ring;

    @Setup
    public void setUp() {
        node = SystemPreset.HGX_H100.build(1, 8, null, WhatIf.NONE);
        ring = NcclPlanner.plan(node, CollectiveOp.ALL_REDUCE, 64L << 20, 0, EnumSet.of(AlgorithmId.RING), EnumSet.of(Protocol.SIMPLE), 0);
    }

    @Benchmark
    public long ringAllReduce64MiB() {
        return node.simulate(ring, null, false).durationPicos();
    }

    @Benchmark
    public int decodeStepLlama70bTp8() {
        StringWriter out = new StringWriter();
        int code = Main.execute(new String[] {"decode", "--model", "llama-3-70b", "--tp", "8", "--batch", "32", "--format", "json"},
                new PrintWriter(out), new PrintWriter(new StringWriter()));
        if (code != 0) {
            throw new IllegalStateException("decode failed: " + code);
        }
        return out.getBuffer().length();
    }
}
