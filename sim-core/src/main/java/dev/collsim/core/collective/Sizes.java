package dev.collsim.core.collective;

/** Integer arithmetic on byte counts shared by the algorithms. */
final class Sizes {
    private Sizes() {}

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    static long alignUp(long a, long align) {
        return ceilDiv(a, align) * align;
    }

    /** Bytes of channel {@code c}'s range when {@code total} bytes are cut in ranges of {@code perChannel}: 0 past the end. */
    static long channelBytes(long total, long perChannel, int c) {
        return Math.max(0, Math.min(total, (c + 1) * perChannel) - c * perChannel);
    }
}
