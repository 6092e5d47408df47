package dev.collsim.core.fabric;

import dev.collsim.core.input.InputException;

/**
 * A change to the connection between two named devices, both directions: its rate scaled by
 * {@code factor} (a GPU that negotiated PCIe x8 instead of x16 is 0.5), or, with a factor of 0,
 * the connection taken down.
 */
public record LinkEdit(String a, String b, double factor) {
    public LinkEdit {
        if (!(factor >= 0) || Double.isInfinite(factor)) {
            throw new InputException("link " + a + ":" + b + ": the factor must be 0 (down) or a positive number, got " + factor);
        }
    }

    public static LinkEdit down(String a, String b) {
        return new LinkEdit(a, b, 0);
    }

    public boolean isDown() {
        return factor == 0;
    }

    public boolean joins(String x, String y) {
        return a.equals(x) && b.equals(y) || a.equals(y) && b.equals(x);
    }

    @Override
    public String toString() {
        return a + ":" + b + (isDown() ? " down" : " x" + factor);
    }
}
