package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each kind of HTML report opened in headless Chromium: no script error, every chart drew something.
 * Screenshots go to target/screenshots/ for people to look at. .ci/run installs Debian's chromium and
 * sets COLLSIM_REQUIRE_BROWSER, so there the test cannot be skipped; elsewhere it runs where chromium is.
 */
class ReportBrowserTest {
    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final Pattern STATUS = Pattern.compile(
            "<div id=\"collsim-status\" data-charts=\"(\\d+)\" data-drawn=\"(\\d+)\" data-errors=\"([^\"]*)\" data-problems=\"([^\"]*)\"");

    @BeforeAll
    static void needsChromium() {
        boolean present = Files.isExecutable(CHROMIUM);
        if (System.getenv("COLLSIM_REQUIRE_BROWSER") != null) {
            assertTrue(present, CHROMIUM + " is missing, and COLLSIM_REQUIRE_BROWSER says the browser test must run");
        }
        Assumptions.assumeTrue(present, "no " + CHROMIUM + ": the browser test is skipped here");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bench", "decode", "prefill", "serve", "serve-percentiles", "compare", "explain", "sweep", "demo", "load",
        "kernels", "collectives"})
    void reportRendersInChromium(String kind) throws Exception {
        Path dir = Path.of("target/reports").toAbsolutePath();
        Files.createDirectories(dir);
        Path html = dir.resolve(kind + ".html");
        switch (kind) {
            case "bench" -> run("bench", "all_reduce", "-b", "8", "-e", "1G", "-f", "4", "-g", "8", "--report", html.toString(),
                    "--measured", "src/test/resources/logs/all_reduce_perf.txt");
            case "decode" -> run("decode", "--model", "llama-3-70b", "--tp", "8", "--batch", "32", "--overlap", "two-batch",
                    "--report", html.toString());
            case "prefill" -> run("prefill", "--model", "llama-3-70b", "--system", "gb200-nvl72", "--tp", "8", "--isl", "8192", "--report",
                    html.toString());
            case "serve" -> run("serve", "--model", "llama-3-8b", "--system", "hgx-h100", "--system", "gb200-nvl72", "--gpus", "16",
                    "--isl", "2048", "--osl", "256", "--report", html.toString());
            case "serve-percentiles" -> run("serve", "--model", "llama-3-8b", "--system", "hgx-h100", "--gpus", "8", "--isl", "2048", "--osl",
                    "256", "--ttft-slo", "p99:1500ms", "--itl-slo", "p90:40ms", "--report", html.toString());
            case "compare" -> run("compare", "--model", "llama-3-70b", "--system", "hgx-h100", "--system", "hgx-h200", "--gpus", "16",
                    "--itl-slo", "30ms", "--dtype", "fp8", "--report", html.toString());
            case "explain" -> run("explain", "all_reduce", "--ranks", "4", "--channels", "1", "--report", html.toString());
            case "kernels" -> run("validate", "--kernels", "--report", html.toString());
            case "collectives" -> {
                // Two of aiconfigurator's H200 sets (2 and 4 GPUs), all four operations: a chart per operation, a line per set.
                Path bundled = Path.of("src/main/resources/calibration/nccl_measured_calibration_aic.csv");
                List<String> lines = Files.readAllLines(bundled);
                List<String> some = new ArrayList<>(List.of(lines.get(0)));
                lines.stream().filter(l -> l.startsWith("AIC_H200_SXM_1N2_NCCL2292,") || l.startsWith("AIC_H200_SXM_1N4_NCCL2292,")).forEach(some::add);
                Path csv = dir.resolve("collectives.csv");
                Files.write(csv, some);
                run("validate", "--calibration", csv.toString(), "--report", html.toString());
            }
            case "sweep" -> {
                Path scenario = dir.resolve("sweep.yaml");
                Files.writeString(scenario, "version: 1\ncommand: sweep\nsweep:\n  command: bench\n  axes:\n"
                        + "    scale: [\"nvlink=0.5\", \"nvlink=1\"]\n    size: [64K, 1M, 16M]\noptions:\n  op: all_reduce\n");
                Files.deleteIfExists(dir.resolve("sweep-out.csv"));
                Files.deleteIfExists(dir.resolve("sweep-out.jsonl"));
                run("sweep", scenario.toString(), "--out", dir.resolve("sweep-out").toString(), "--report", html.toString());
            }
            case "load" -> {
                // A load run's page from hand-built outcomes (the simulation has its own tests): one disaggregated, one of 3,000 requests.
                dev.collsim.reports.HtmlReport report = new dev.collsim.reports.HtmlReport("collsim load");
                dev.collsim.scenarios.views.LoadHtml.add(report, dev.collsim.scenarios.views.LoadSamples.disaggregated());
                dev.collsim.scenarios.views.LoadHtml.add(report, dev.collsim.scenarios.views.LoadSamples.aggregated(3000));
                Files.writeString(html, report.render());
            }
            default -> {
                // The demo writes its report into the working directory's collsim-report/.
                run("demo");
                Files.copy(Path.of(DemoCommand.REPORT_DIR, "demo.html"), html, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        String dom = looksRight(html, kind);
        if (kind.equals("collectives")) {
            assertTrue(dom.contains("data-charts=\"4\""), "one chart per operation the two H200 sets measured");
        }
        if (kind.equals("explain")) {
            // Opened at step 2: the caption says so, and the step's transfers (a ring's 4) each move from the same instant.
            String at = chromium(List.of("--dump-dom", html.toUri() + "#step=2"));
            assertTrue(at.contains("step 2 of"), "the lesson did not open at step 2");
            assertEquals(List.of("0s"), packetStarts(at, "2", 4));
        }
        Path png = Path.of("target/screenshots").toAbsolutePath().resolve(kind + ".png");
        Files.createDirectories(png.getParent());
        chromium(List.of("--hide-scrollbars", "--window-size=1280,1600", "--screenshot=" + png, html.toUri().toString()));
        assertTrue(Files.size(png) > 10_000, "screenshot " + png + " is nearly empty");
    }

    /**
     * Each lesson draws what its algorithm runs on: the nodes as boxes (a tree across two nodes), the
     * NVSwitch that NVLS reduces in, the SHARP switch CollNet reduces in; a step's transfers all move
     * from the same instant.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tree --ranks 16 --nodes 2 --proto Simple", "nvls --ranks 8", "nvlstree --ranks 16 --nodes 2",
        "collnetdirect --ranks 16 --nodes 2"})
    void lessonDrawsNodesAndSwitches(String args) throws Exception {
        Path dir = Files.createDirectories(Path.of("target/reports").toAbsolutePath());
        Path html = dir.resolve("lesson-" + args.split(" ")[0] + ".html");
        List<String> command = new ArrayList<>(List.of("explain", "all_reduce", "--size", "1MiB", "--report", html.toString(), "--algo"));
        command.addAll(List.of(args.split(" ")));
        run(command.toArray(String[]::new));
        // Step 2: past NVLS's local copies of step 1, which move nothing between ranks.
        String dom = chromium(List.of("--dump-dom", html.toUri() + "#step=2"));
        int nodes = args.contains("--nodes 2") ? 2 : 1;
        assertEquals(nodes, count(dom, "<rect class=\"node\""), "node boxes");
        assertEquals(args.startsWith("nvls") ? nodes : 0, count(dom, "data-switch=\"sw"), "NVSwitches");
        assertEquals(args.startsWith("collnet") ? 1 : 0, count(dom, "data-switch=\"sharp\""), "SHARP switches");
        assertEquals(List.of("0s"), packetStarts(dom, "2", 1));
        assertTrue(!dom.contains("charts drawn"), "test text on the page");
    }

    private static int count(String text, String what) {
        return text.split(java.util.regex.Pattern.quote(what), -1).length - 1;
    }

    /** The distinct start times of the first legs of the shown step's packets, after checking there are at least {@code least}. */
    private static List<String> packetStarts(String dom, String step, int least) {
        Matcher frame = Pattern.compile("<g id=\"frame\" data-step=\"" + step + "\" data-transfers=\"(\\d+)\">(.*?)</g>", Pattern.DOTALL)
                .matcher(dom);
        assertTrue(frame.find(), "no frame for step " + step);
        assertTrue(Integer.parseInt(frame.group(1)) >= least, "transfers in step " + step + ": " + frame.group(1));
        Matcher begins = Pattern.compile("<animateMotion begin=\"([^\"]+)\"").matcher(frame.group(2));
        List<String> firstLegs = new ArrayList<>();
        int packets = 0;
        while (begins.find()) {
            packets++;
            if (!begins.group(1).equals("0.6s") && !firstLegs.contains(begins.group(1))) {
                firstLegs.add(begins.group(1));
            }
        }
        assertTrue(packets >= Integer.parseInt(frame.group(1)), "a packet for every transfer of the step");
        return firstLegs;
    }

    /**
     * The page as Chromium rendered it: at least one chart, no script error, every chart drew
     * something, and none lacks a title, an axis title or a series' data.
     */
    private static String looksRight(Path html, String kind) throws Exception {
        String dom = chromium(List.of("--dump-dom", html.toUri().toString()));
        Matcher m = STATUS.matcher(dom);
        assertTrue(m.find(), "no status element in the rendered page:\n" + dom.substring(0, Math.min(400, dom.length())));
        int charts = Integer.parseInt(m.group(1));
        assertTrue(charts > 0, "no chart in the " + kind + " report");
        assertEquals("", m.group(3), "script errors");
        assertEquals(charts, Integer.parseInt(m.group(2)), "charts that drew something");
        assertEquals("", m.group(4), kind + " report: what a reader would miss");
        return dom;
    }

    /** The checks above fail on a report that lacks what a reader needs: a deliberately broken one. */
    @org.junit.jupiter.api.Test
    void aBrokenReportFailsTheLook() throws Exception {
        Path dir = Files.createDirectories(Path.of("target/reports").toAbsolutePath());
        var untitledAxis = dev.collsim.reports.HtmlReport.json().createObjectNode();
        untitledAxis.putObject("title").put("text", "a chart");
        untitledAxis.putObject("xAxis").put("type", "value");
        untitledAxis.putObject("yAxis").put("type", "value").put("name", "ms");
        untitledAxis.putArray("series").addObject().put("type", "line").put("name", "drawn").putArray("data").addArray().add(1).add(2);
        var emptySeries = untitledAxis.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) emptySeries.get("xAxis")).put("name", "size");
        ((com.fasterxml.jackson.databind.node.ArrayNode) emptySeries.get("series")).addObject().put("type", "line").put("name", "nothing")
                .putArray("data");
        for (var chart : List.of(untitledAxis, emptySeries)) {
            Path html = dir.resolve("broken.html");
            Files.writeString(html, new dev.collsim.reports.HtmlReport("broken").chart(chart, 300).render());
            AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> looksRight(html, "broken"));
            assertTrue(e.getMessage().contains(chart == untitledAxis ? "xAxis has no title" : "series nothing is empty"), e.getMessage());
        }
    }

    private static void run(String... args) {
        CliRunner r = CliRunner.run(args);
        assertEquals(0, r.code(), r.err());
    }

    private static String chromium(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + Files.createTempDirectory("chromium")));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "chromium did not finish");
        return new String(out, StandardCharsets.UTF_8);
    }
}
