package dev.collsim.scenarios.validate;

import dev.collsim.core.input.TextFile;
import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.NcclVersion;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measured times to hold a simulation against: the standard table nccl-tests prints (its out-of-place
 * time per size), or a CSV shaped like the calibration set (its rows of the operation, one data set).
 */
public final class Measured {
    private Measured() {}

    /** Size in bytes to measured time in us. */
    public static TreeMap<Long, Double> read(Path file, CollectiveOp op) {
        if (file.toString().endsWith(".csv")) {
            TreeMap<Long, Double> out = new TreeMap<>();
            List<CalibrationRow> rows = CalibrationSet.file(file).stream().filter(r -> r.op().equals(op.ncclName())).toList();
            if (rows.stream().map(CalibrationRow::dataset).distinct().count() > 1) {
                throw new InputException(file + ": holds " + op.ncclName() + " rows of several data sets; keep one per file");
            }
            rows.forEach(r -> out.put(r.sizeBytes(), r.timeMicros()));
            return nonEmpty(out, file, op);
        }
        return nonEmpty(parse(TextFile.lines(file), file.toString(), op), file, op);
    }

    /**
     * What nccl-tests' header says of the run: {@code nGpus} (GPUs per thread, its -g) on the line
     * {@code # nThread T nGpus G ...}, and the ranks, one {@code #  Rank  r Group  g Pid ... device d}
     * line each (rank 0 prints every rank's). Either is null where the log does not say (a CSV, a log
     * cut to its table).
     *
     * @param nGpusLine the line of nGpus, 0 where there is none
     * @param nccl      the NCCL release of nccl-tests' {@code nccl-library=CODE} (2.17 and later print it), null where
     *                  the log does not say or names a release not modelled
     */
    public record LogHeader(Integer nGpus, int nGpusLine, Integer ranks, NcclVersion nccl) {}

    private static final Pattern NGPUS = Pattern.compile("^#\\s*nThread\\s+\\d+\\s+nGpus\\s+(\\d{1,6})\\b.*");
    private static final Pattern RANK = Pattern.compile("^#\\s*Rank\\s+\\d+\\s+Group\\s+\\d+\\b.*");
    private static final Pattern LIBRARY = Pattern.compile("\\bnccl-library=(\\d{5,6})\\b");

    /** The header of an nccl-tests log; nothing for a calibration CSV. */
    public static LogHeader header(Path file) {
        if (file.toString().endsWith(".csv")) {
            return new LogHeader(null, 0, null, null);
        }
        List<String> lines = TextFile.lines(file);
        Integer nGpus = null;
        int nGpusLine = 0;
        int ranks = 0;
        NcclVersion nccl = null;
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).trim();
            Matcher m = NGPUS.matcher(line);
            if (m.matches() && nGpus == null) {
                nGpus = Integer.parseInt(m.group(1));
                nGpusLine = n + 1;
            }
            ranks += RANK.matcher(line).matches() ? 1 : 0;
            Matcher lib = LIBRARY.matcher(line);
            if (line.startsWith("#") && lib.find() && nccl == null) {
                nccl = ncclRelease(Integer.parseInt(lib.group(1)));
            }
        }
        return new LogHeader(nGpus, nGpusLine, ranks == 0 ? null : ranks, nccl);
    }

    /** NCCL's {@code NCCL_VERSION_CODE} (major x 10000 + minor x 100 + patch, 22809 for 2.28.9) as a modelled release, or null. */
    static NcclVersion ncclRelease(int code) {
        return NcclVersion.find(code / 10000 + "." + code / 100 % 100 + "." + code % 100);
    }

    /**
     * The data lines of nccl-tests' table: size, count, type, then (depending on the version and the
     * operation) a reduction and a root, then the out-of-place time, algbw and busbw. Lines of 0 B
     * (nccl-tests -b 0) are skipped: they time the launch alone.
     */
    public static TreeMap<Long, Double> parseLog(List<String> lines, String file) {
        return parse(lines, file, null);
    }

    /**
     * As {@link #parseLog}; with {@code op}, a log of another operation is refused where its reduction
     * column tells: nccl-tests prints {@code none} for all_gather, broadcast and alltoall, and the
     * reduction (sum, ...) for all_reduce, reduce and reduce_scatter. sendrecv prints either, and logs
     * of versions without the column pass.
     */
    private static TreeMap<Long, Double> parse(List<String> lines, String file, CollectiveOp op) {
        boolean operationChecked = op == null || op == CollectiveOp.SEND_RECV;
        TreeMap<Long, Double> out = new TreeMap<>();
        Map<Long, Integer> lineOf = new HashMap<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).trim();
            if (line.isEmpty() || line.startsWith("#") || !Character.isDigit(line.charAt(0))) {
                continue;
            }
            String where = file + ":" + (n + 1) + ": ";
            String[] tok = line.split("\\s+");
            if (tok.length >= 6 && tok[0].matches("\\d+(\\.\\d+)?[KMGTkmgt]i?B?")) {
                throw new InputException(where + "size '" + tok[0] + "': nccl-tests prints sizes in bytes, without a unit");
            }
            if (tok.length < 6 || !tok[0].matches("\\d+") || !tok[1].matches("\\d+")) {
                continue;
            }
            if (tok[0].length() > 18) {
                throw new InputException(where + "size '" + tok[0] + "' is beyond any buffer (at most 18 digits)");
            }
            if (!operationChecked && !looksNumeric(tok[3])) {
                if (!tok[3].equals("none") != op.reduces()) {
                    throw new InputException(where + "reduction '" + tok[3] + "': this is not " + op.ncclName() + "'s output ("
                            + (op.reduces() ? "it reduces" : "it prints none") + "); give the log's own operation");
                }
                operationChecked = true;
            }
            int i = 3;
            while (i < tok.length && !looksNumeric(tok[i])) {
                i++; // the reduction
            }
            if (numbersAt(tok, i + 1, 3) && tok[i].matches("-?\\d+")) {
                i++; // the root: an integer followed by time, algbw and busbw
            }
            double time = numbersAt(tok, i, 3) ? Double.parseDouble(tok[i]) : -1;
            if (!(time > 0) || Double.isInfinite(time)) {
                throw new InputException(where + "expected an nccl-tests data line (size count type [redop] [root]"
                        + " time algbw busbw ...) with a positive, finite time, got '" + line + "'");
            }
            long size = Long.parseLong(tok[0]);
            if (size == 0) {
                continue;
            }
            Integer first = lineOf.putIfAbsent(size, n + 1);
            if (first != null) {
                throw new InputException(where + "size " + size + " B again (first on line " + first
                        + "); keep one nccl-tests run of one operation per file");
            }
            out.put(size, time);
        }
        return out;
    }

    private static boolean numbersAt(String[] tok, int from, int count) {
        for (int k = from; k < from + count; k++) {
            if (k >= tok.length || !looksNumeric(tok[k])) {
                return false;
            }
        }
        return true;
    }

    private static boolean looksNumeric(String s) {
        return s.matches("-?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    }

    private static TreeMap<Long, Double> nonEmpty(TreeMap<Long, Double> m, Path file, CollectiveOp op) {
        if (m.isEmpty()) {
            throw new InputException(file + ": no measured " + op.ncclName() + " line; expected nccl-tests' output or a calibration CSV");
        }
        return m;
    }
}
