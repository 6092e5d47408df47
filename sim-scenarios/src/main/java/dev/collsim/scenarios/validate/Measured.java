package dev.collsim.scenarios.validate;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

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
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InputException(file + ": cannot read (" + e.getMessage() + ")");
        }
        return nonEmpty(parseLog(lines, file.toString()), file, op);
    }

    /**
     * The data lines of nccl-tests' table: size, count, type, then (depending on the version and the
     * operation) a reduction and a root, then the out-of-place time, algbw and busbw.
     */
    static TreeMap<Long, Double> parseLog(List<String> lines, String file) {
        TreeMap<Long, Double> out = new TreeMap<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).trim();
            if (line.isEmpty() || line.startsWith("#") || !Character.isDigit(line.charAt(0))) {
                continue;
            }
            String[] tok = line.split("\\s+");
            if (tok.length < 6 || !tok[0].matches("\\d+") || !tok[1].matches("\\d+")) {
                continue;
            }
            int i = 3;
            while (i < tok.length && !looksNumeric(tok[i])) {
                i++; // the reduction
            }
            if (numbersAt(tok, i + 1, 3) && tok[i].matches("-?\\d+")) {
                i++; // the root: an integer followed by time, algbw and busbw
            }
            double time = numbersAt(tok, i, 3) ? Double.parseDouble(tok[i]) : -1;
            if (!(time > 0)) {
                throw new InputException(file + ":" + (n + 1) + ": expected an nccl-tests data line (size count type [redop] [root]"
                        + " time algbw busbw ...), got '" + line + "'");
            }
            out.put(Long.parseLong(tok[0]), time);
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
        return s.matches("-?[0-9.]+(e[+-]?[0-9]+)?");
    }

    private static TreeMap<Long, Double> nonEmpty(TreeMap<Long, Double> m, Path file, CollectiveOp op) {
        if (m.isEmpty()) {
            throw new InputException(file + ": no measured " + op.ncclName() + " line; expected nccl-tests' output or a calibration CSV");
        }
        return m;
    }
}
