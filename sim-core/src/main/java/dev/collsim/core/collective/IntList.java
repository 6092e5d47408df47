package dev.collsim.core.collective;

import java.util.Arrays;

/** A growable list of ints, for schedule generation. */
final class IntList {
    private int[] values = new int[16];
    private int size;

    void add(int v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    int get(int i) {
        return values[i];
    }

    int size() {
        return size;
    }
}
