package dev.collsim.scenarios.stochastic;

import java.math.BigInteger;
import umontreal.ssj.rng.MRG32k3a;

/**
 * Successive MRG32k3a streams from one seed, each seeded on its own instance: the streams SSJ would
 * hand out after {@code MRG32k3a.setPackageSeed(seed)}, without SSJ's global package seed (so no
 * lock, and no run can disturb another's). Stream {@code k} starts at {@code A^(k 2^127)} times the
 * seed, where {@code A} is each component's recurrence matrix (L'Ecuyer, Simard, Chen and Kelton,
 * "An object-oriented random-number package with many long streams and substreams", 2002).
 *
 * <p>Public so that other models (the serving workload) draw from streams of the same kind, seeded
 * from one number the way {@link Variability} seeds its own.
 */
public final class Mrg32k3aStreams {
    private static final long M1 = 4294967087L;
    private static final long M2 = 4294944443L;
    /** One step of each component: x1_n = 1403580 x1_{n-2} - 810728 x1_{n-3}; x2_n = 527612 x2_{n-1} - 1370589 x2_{n-3}. */
    private static final long[][] A1 = {{0, 1, 0}, {0, 0, 1}, {M1 - 810728, 1403580, 0}};
    private static final long[][] A2 = {{0, 1, 0}, {0, 0, 1}, {M2 - 1370589, 0, 527612}};
    /** The jump from one stream's start to the next's: 2^127 steps. */
    private static final long[][] A1_P127 = powerOfTwo(A1, 127, M1);
    private static final long[][] A2_P127 = powerOfTwo(A2, 127, M2);

    private Mrg32k3aStreams() {
    }

    /** {@code count} streams from one number: the six seed words of {@link #seedWords}, then {@link #of}. */
    public static MRG32k3a[] fromSeed(long seed, int count) {
        return of(seedWords(seed), count);
    }

    /** {@code count} streams, the first starting at {@code seed} (six words, as {@link MRG32k3a#setSeed} takes them). */
    public static MRG32k3a[] of(long[] seed, int count) {
        MRG32k3a[] out = new MRG32k3a[count];
        long[] next = seed.clone();
        for (int k = 0; k < count; k++) {
            out[k] = new MRG32k3a();
            out[k].setSeed(next.clone());
            long[] first = times(A1_P127, new long[] {next[0], next[1], next[2]}, M1);
            long[] second = times(A2_P127, new long[] {next[3], next[4], next[5]}, M2);
            next = new long[] {first[0], first[1], first[2], second[0], second[1], second[2]};
        }
        return out;
    }

    /** Six seed words from one number, each in the ranges MRG32k3a requires (below its moduli, not all zero). */
    public static long[] seedWords(long seed) {
        long[] words = new long[6];
        long x = seed;
        for (int i = 0; i < 6; i++) {
            x += 0x9E3779B97F4A7C15L;
            long z = x;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z ^= z >>> 31;
            words[i] = 1 + Long.remainderUnsigned(z, i < 3 ? 4294967086L : 4294944442L);
        }
        return words;
    }

    private static long[][] powerOfTwo(long[][] a, int e, long m) {
        long[][] p = a;
        for (int i = 0; i < e; i++) {
            p = times(p, p, m);
        }
        return p;
    }

    private static long[][] times(long[][] a, long[][] b, long m) {
        long[][] c = new long[3][3];
        for (int j = 0; j < 3; j++) {
            long[] column = times(a, new long[] {b[0][j], b[1][j], b[2][j]}, m);
            for (int i = 0; i < 3; i++) {
                c[i][j] = column[i];
            }
        }
        return c;
    }

    /** {@code a v mod m}; the products exceed a long, so they are summed exactly. */
    private static long[] times(long[][] a, long[] v, long m) {
        long[] out = new long[3];
        BigInteger mod = BigInteger.valueOf(m);
        for (int i = 0; i < 3; i++) {
            BigInteger sum = BigInteger.ZERO;
            for (int k = 0; k < 3; k++) {
                sum = sum.add(BigInteger.valueOf(a[i][k]).multiply(BigInteger.valueOf(v[k])));
            }
            out[i] = sum.mod(mod).longValueExact();
        }
        return out;
    }
}
