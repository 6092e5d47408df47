package dev.collsim.scenarios.cli;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.units.DataSize;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.ReportFormat;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.bench.BenchSpec;
import dev.collsim.scenarios.bench.SizeSweep;
import dev.collsim.scenarios.decode.AllReduceKind;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.views.BenchReport;
import dev.collsim.scenarios.views.BenchTable;
import dev.collsim.scenarios.views.DecodeHtml;
import dev.collsim.scenarios.views.DecodeReport;
import dev.collsim.topologies.systems.SystemPreset;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code collsim demo}: the built-in main job, an nccl-tests sweep of ring all_reduce and a decode step on the default system. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Runs the built-in example: all_reduce from 8 B to 8 GiB on the default system, " + SystemFlag.DEFAULT
                + ", as nccl-tests would, then one decode step of Llama-3-70B on it; writes an HTML report of both to"
                + " collsim-report/demo.html.")
public final class DemoCommand implements Callable<Integer> {
    /** Where the demo writes its HTML report, in the working directory. */
    static final String REPORT_DIR = "collsim-report";

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        SystemPreset system = SystemPreset.byName(SystemFlag.DEFAULT);
        BenchSpec bench = new BenchSpecBuilder(CollectiveOp.ALL_REDUCE, BenchSystem.preset(system, 1, system.gpusPerNode(), null),
                new SizeSweep(8, 8 * DataSize.GIB, 2, DataSize.MIB)).algos(EnumSet.of(AlgorithmId.RING)).build();
        out.println("# collsim demo: what `collsim bench all_reduce --system " + system.id() + " --algo ring -b 8 -e 8G -f 2` prints");
        List<BenchRow> rows = Bench.run(bench);
        out.print(ReportFormat.TABLE.render(BenchTable.of(bench, system.description(), rows)));
        out.println();
        out.println("# and one decode step of Llama-3-70B on the same box, TP 8, 32 sequences of 4096 tokens:");
        out.println("# what `collsim decode --model llama-3-70b --system " + system.id() + " --tp 8 --batch 32 --context 4096` prints, in short");
        DecodeResult step = DecodeStep.run(new DecodeSpec(ModelConfig.load("llama-3-70b"), new DecodeSystem.Preset(system, null, OptionalInt.empty()), OptionalInt.empty(), 8, 1, 1, 1, 32, 4096,
                Precision.BF16, AllReduceKind.AUTO, Overlap.NONE, true));
        Table table = DecodeReport.table(step);
        out.print(String.join("\n", table.preamble().stream().map(l -> "# " + l).toList()) + "\n");
        table.footer().forEach(l -> out.println("# " + l));
        out.println();
        HtmlReport report = new HtmlReport("collsim demo");
        BenchReport.add(report, bench, system.description(), rows);
        DecodeHtml.add(report, step);
        Path html = Path.of(REPORT_DIR, "demo.html").toAbsolutePath();
        RunFiles.current().write(html, report.render());
        out.println("Report with charts (opens offline): " + html);
        out.println();
        out.println("What to try next:");
        out.println("  collsim bench all_gather --system hgx-b200 -b 1M -e 1G -f 4      another GPU generation, another collective");
        out.println("  collsim bench all_reduce -b 8 -e 8G -f 2 -g 8                    one thread driving 8 GPUs: the ~35 us floor of real logs");
        out.println("  collsim bench all_reduce -b 64K -e 64M -f 4 --proto simple       force a protocol and watch small sizes slow down");
        out.println("  collsim bench broadcast --gpus-per-node 4 --channels 2 --format csv");
        out.println("  collsim validate                                                 the error against measured nccl-tests runs");
        out.println("  collsim validate --decode                                        the decode step against measured serving runs");
        out.println("  collsim decode --model llama-3-70b --tp 8 --batch 32 --overlap two-batch   hide the all-reduces, reread the weights");
        out.println("  collsim decode --model deepseek-v3 --system gb200-nvl72 --dp 72 --ep 72 --batch 64 --dtype fp8");
        out.flush();
        return 0;
    }
}
