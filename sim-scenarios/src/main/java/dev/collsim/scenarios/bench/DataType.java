package dev.collsim.scenarios.bench;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** nccl-tests' {@code -d} data types, with their sizes in bytes. */
public enum DataType {
    INT8("int8", 1), UINT8("uint8", 1), INT32("int32", 4), UINT32("uint32", 4), INT64("int64", 8),
    UINT64("uint64", 8), HALF("half", 2), FLOAT("float", 4), DOUBLE("double", 8), BFLOAT16("bfloat16", 2),
    F8E4M3("f8e4m3", 1), F8E5M2("f8e5m2", 1);

    private final String ncclName;
    private final int bytes;

    DataType(String ncclName, int bytes) {
        this.ncclName = ncclName;
        this.bytes = bytes;
    }

    public String ncclName() {
        return ncclName;
    }

    public int bytes() {
        return bytes;
    }

    public static DataType fromName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        switch (n) {
            case "float32", "fp32" -> n = "float";
            case "float16", "fp16" -> n = "half";
            case "float64", "fp64" -> n = "double";
            case "bf16" -> n = "bfloat16";
            case "char" -> n = "int8";
            case "int" -> n = "int32";
            default -> { }
        }
        for (DataType t : values()) {
            if (t.ncclName.equals(n)) {
                return t;
            }
        }
        throw new InputException("unknown data type '" + name + "'; expected one of "
                + Arrays.stream(values()).map(DataType::ncclName).collect(Collectors.joining(", ")));
    }
}
