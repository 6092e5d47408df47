package dev.collsim.scenarios.bench;

import dev.collsim.core.input.InputException;
import java.util.Locale;

/** nccl-tests' {@code -o} reduction operations. They change no timing in the model: NVLink, not the ALUs, bounds collectives. */
public enum ReduceOp {
    SUM, PROD, MIN, MAX, AVG;

    public String ncclName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ReduceOp fromName(String name) {
        for (ReduceOp o : values()) {
            if (o.ncclName().equalsIgnoreCase(name)) {
                return o;
            }
        }
        throw new InputException("unknown reduction '" + name + "'; expected sum, prod, min, max or avg");
    }
}
