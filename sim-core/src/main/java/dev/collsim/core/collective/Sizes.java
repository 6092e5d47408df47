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
}
