package dev.collsim.scenarios.validate;

/**
 * One measured figure of a serving run: a row of the serving CSV (a metric such as ttft_ms, a stat
 * such as mean, its value). The rows of one run share its {@link Run}, and so its one simulation.
 *
 * @param id    the row's id (row_id)
 * @param line  its line in the file
 * @param value the measured figure: ms for the latencies, tokens/s for output_tok_s
 */
public record ServingRow(String id, int line, Run run, String metric, String stat, double value) {
    /**
     * What was run, as the columns give it: every column the simulation reads. {@code agg} is the
     * instance of an aggregated run (null when disaggregated); {@code prefill} and {@code decode} the
     * roles of a disaggregated one (null when aggregated).
     *
     * @param system   the system column ("8-GPU HGX H100 node"), or "" where the file has none
     * @param gpus     the GPUs the run used, 0 where not given
     * @param load     batch_or_concurrency: requests in flight (concurrency) or per second (qps)
     * @param loadKind what load counts, as the README names it: concurrency, batch or qps
     */
    public record Run(String framework, String gpu, String system, int gpus, String model, String dtype, String mode, Role agg, Role prefill,
                      Role decode, double load, String loadKind, int isl, int osl, String specDecode, String notes) {
        public boolean disaggregated() {
            return agg == null;
        }
    }

    /**
     * One kind of instance as the CSV gives it.
     *
     * @param workers instances of it (1 for an aggregated run)
     * @param batch   the sequences a replica runs at once (the engine's max batch), 0 where not given
     */
    public record Role(int workers, int tp, int pp, int ep, int dp, int batch) {}
}
