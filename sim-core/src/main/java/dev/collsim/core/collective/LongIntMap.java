package dev.collsim.core.collective;

import java.util.Arrays;

/**
 * A map from long keys to non-negative ints by open addressing: the lookups a schedule makes per
 * transfer (its stream, its pair of ranks), without boxing a key each time.
 */
final class LongIntMap {
    private long[] keys = new long[64];
    private int[] values = new int[64];
    private int size;

    LongIntMap() {
        Arrays.fill(values, -1);
    }

    /** The value of {@code key}, or -1 if it has none. */
    int get(long key) {
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            if (values[i] < 0 || keys[i] == key) {
                return values[i];
            }
        }
    }

    /** Gives {@code key} a value (0 or more), replacing any it had. */
    void put(long key, int value) {
        if (value < 0) {
            throw new IllegalArgumentException("values are 0 or more: " + value);
        }
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (values[i] >= 0 && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (values[i] < 0) {
            size++;
        }
        keys[i] = key;
        values[i] = value;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        Arrays.fill(values, -1);
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldValues[j] >= 0) {
                int i = mix(oldKeys[j]) & mask;
                while (values[i] >= 0) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
            }
        }
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
