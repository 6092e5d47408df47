package dev.collsim.core.units;

/**
 * An amount of data in bytes. Decimal (KB, MB, GB) and binary (KiB, MiB, GiB) prefixes parse
 * exactly; so do nccl-tests' K, M, G (binary) and a bare number of bytes.
 */
public record DataSize(long bytes) implements Comparable<DataSize> {
    public static final long KIB = 1L << 10;
    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    public DataSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative data size: " + bytes + " B");
        }
    }

    public static DataSize ofBytes(long bytes) {
        return new DataSize(bytes);
    }

    /** Parses a size, e.g. {@code 4MiB}, {@code 4M}, {@code 4194304}, {@code 1.5GB}, {@code 512B}. */
    public static DataSize parse(String text) {
        return Units.parseSize(text);
    }

    @Override
    public int compareTo(DataSize o) {
        return Long.compare(bytes, o.bytes);
    }

    @Override
    public String toString() {
        return Units.formatSize(bytes);
    }
}
