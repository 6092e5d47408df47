package dev.collsim.scenarios.validate;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What to validate: measured nccl-tests lines, and the system each of their data sets ran on.
 *
 * @param rows   the measured lines, data set by data set
 * @param setups each data set's system, by its id
 */
public record ValidationSpec(List<CalibrationRow> rows, Map<String, DatasetSetup> setups) {
    public ValidationSpec {
        rows = List.copyOf(rows);
        setups = Collections.unmodifiableMap(new LinkedHashMap<>(setups));
    }

    /** The project's calibration set: the bundled measurements, or a CSV shaped like them, with the bundled set-ups. */
    public static ValidationSpec calibration(Path csv) {
        return new ValidationSpec(csv == null ? CalibrationSet.bundled() : CalibrationSet.file(csv), CalibrationSet.setups());
    }

    /**
     * This set with a user's nccl-tests output (or calibration-shaped CSV) of one operation added as
     * a data set of its own, named by the file, that ran on {@code setup}'s system.
     */
    public ValidationSpec withLog(Path log, CollectiveOp op, DatasetSetup setup) {
        if (setups.containsKey(setup.id())) {
            throw new InputException(log + ": a data set of that name is already in the calibration set; rename the file");
        }
        List<CalibrationRow> moreRows = new ArrayList<>(rows);
        int line = 0;
        for (var m : Measured.read(log, op).entrySet()) {
            moreRows.add(new CalibrationRow(setup.id(), op.ncclName(), "float", m.getKey(), m.getValue(), ++line));
        }
        Map<String, DatasetSetup> moreSetups = new LinkedHashMap<>(setups);
        moreSetups.put(setup.id(), setup);
        return new ValidationSpec(moreRows, moreSetups);
    }
}
