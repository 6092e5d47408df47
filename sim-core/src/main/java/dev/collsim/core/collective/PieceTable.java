package dev.collsim.core.collective;

import java.util.Arrays;

/** The pieces a schedule's builder registers, in a growable table. */
final class PieceTable {
    private int count;
    private long[] offset = new long[64];
    private long[] length = new long[64];
    private int[] segment = new int[64];
    private int[] dest = new int[64];

    /** Registers a byte range owned by {@code segmentOwner} (or -1) that must end at {@code destRank} (or -1). */
    int add(long pieceOffset, long pieceLength, int segmentOwner, int destRank) {
        if (count == offset.length) {
            int cap = count * 2;
            offset = Arrays.copyOf(offset, cap);
            length = Arrays.copyOf(length, cap);
            segment = Arrays.copyOf(segment, cap);
            dest = Arrays.copyOf(dest, cap);
        }
        offset[count] = pieceOffset;
        length[count] = pieceLength;
        segment[count] = segmentOwner;
        dest[count] = destRank;
        return count++;
    }

    int count() {
        return count;
    }

    long length(int p) {
        return length[p];
    }

    long[] offsets() {
        return Arrays.copyOf(offset, count);
    }

    long[] lengths() {
        return Arrays.copyOf(length, count);
    }

    int[] segments() {
        return Arrays.copyOf(segment, count);
    }

    int[] dests() {
        return Arrays.copyOf(dest, count);
    }
}
