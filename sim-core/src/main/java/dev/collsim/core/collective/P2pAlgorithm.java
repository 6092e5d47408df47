package dev.collsim.core.collective;

import java.util.Arrays;

/**
 * NCCL's point-to-point path for alltoall and sendrecv (after {@code ncclP2pSchedule} in
 * {@code src/init.cc}, {@code ncclP2pChannelBaseForRound} in {@code src/include/channel.h} and
 * {@code addP2pToPlan}, {@code ncclAddWorkBatchToPlan} in {@code src/enqueue.cc}).
 *
 * <p>sendrecv: each rank sends its buffer to the next rank. alltoall: each rank sends one block to
 * every other rank in NCCL's rounds. Ranks form groups of up to {@value #PEERS_PER_BATCH} on one node
 * (inside one node, the whole node); round {@code g x G + d} sends to local rank {@code local + d} of
 * the group {@code g'} groups ahead, where the group deltas {@code g'} follow the quadratic sequence
 * {@code (i^2 + i)/2 mod 2^k}, those beyond the groups left out. A round's send is split into the
 * request's channels' parts (aligned to 4 KiB; how many is NCCL's rule, {@code NcclPlanner}); part
 * {@code p} of round {@code r} runs on p2p channel {@code (reverseBits(base(r)) + p) mod channels},
 * where a node's rounds each take their own base and, across nodes, every {@value #PEERS_PER_BATCH}
 * rounds share one. On each channel a rank's works form batches of the rounds with one
 * {@code r / 8}; a batch starts once the channel's previous batch has ended, that is when its sends
 * have left and its receives have arrived. Each part moves as a pipeline of chunks with
 * {@link Protocol#STEPS} slots of credit. The rank's own block stays in its memory and is not simulated.
 */
public final class P2pAlgorithm implements CollectiveAlgorithm {
    public static final int PEERS_PER_BATCH = 8;
    private static final long PART_ALIGN = 4096;

    private final long chunkBytes;
    private final int ranksPerNode;
    private final int p2pChannels;

    /**
     * @param chunkBytes   the p2p chunk (NCCL: 512 KiB over NVLink, 128 KiB over PCIe or the network)
     * @param ranksPerNode ranks on each node, taken in rank order; across nodes a small Simple send
     *                     moves in smaller chunks, as {@code addP2pToPlan} tunes them for the network
     *                     (a quarter below one chunk, a half below eight)
     * @param p2pChannels  the communicator's p2p channels, a power of two
     */
    public P2pAlgorithm(long chunkBytes, int ranksPerNode, int p2pChannels) {
        if (chunkBytes < 1 || ranksPerNode < 1 || Integer.bitCount(p2pChannels) != 1) {
            throw new IllegalArgumentException("the chunk and ranks per node must be positive, the channels a power of two");
        }
        this.chunkBytes = chunkBytes;
        this.ranksPerNode = ranksPerNode;
        this.p2pChannels = p2pChannels;
    }

    @Override
    public String name() {
        return "P2P";
    }

    /**
     * NCCL's rounds for {@code n} ranks with {@code ranksPerNode} on each node: entry {@code r} is
     * the rank that rank 0 sends to in round {@code r} (round 0 is rank 0 itself).
     */
    public static int[] sendPeersOfRankZero(int n, int ranksPerNode) {
        Rounds rounds = new Rounds(n, ranksPerNode);
        int[] out = new int[n];
        for (int r = 0; r < n; r++) {
            out[r] = rounds.sendPeer(0, r);
        }
        return out;
    }

    /** NCCL's p2p schedule ({@code ncclP2pSchedule}): group deltas in quadratic order, local deltas in turn. */
    private static final class Rounds {
        final int n;
        final int group;
        final int groups;
        final boolean acrossNodes;
        /** Per round: how many groups ahead it sends, and how many local ranks ahead within that group. */
        final int[] groupDelta;
        final int[] localDelta;
        /** Per group delta: the first round that sends that many groups ahead. */
        final int[] firstRoundOfGroupDelta;

        Rounds(int n, int ranksPerNode) {
            this.n = n;
            this.acrossNodes = ranksPerNode < n;
            int g = acrossNodes ? PEERS_PER_BATCH : n;
            int local = Math.min(ranksPerNode, n);
            if (local % g != 0 || local < g) {
                g = gcd(g, local);
            }
            this.group = g;
            this.groups = n / g;
            int pow2 = Integer.highestOneBit(Math.max(1, groups * 2 - 1));
            groupDelta = new int[n];
            localDelta = new int[n];
            firstRoundOfGroupDelta = new int[groups];
            int round = 0;
            int delta = 0;
            for (int i = 0; i < pow2; i++) {
                if (delta < groups) {
                    firstRoundOfGroupDelta[delta] = round;
                    for (int d = 0; d < g; d++) {
                        groupDelta[round] = delta;
                        localDelta[round] = d;
                        round++;
                    }
                }
                delta = (delta + i + 1) & (pow2 - 1);
            }
        }

        int sendPeer(int rank, int round) {
            return Math.floorMod(rank / group + groupDelta[round], groups) * group + (rank % group + localDelta[round]) % group;
        }

        int recvPeer(int rank, int round) {
            return Math.floorMod(rank / group - groupDelta[round], groups) * group
                    + Math.floorMod(rank % group - localDelta[round], group);
        }

        /** The round in which {@code src} sends to {@code dst}. */
        int round(int src, int dst) {
            return firstRoundOfGroupDelta[Math.floorMod(dst / group - src / group, groups)]
                    + Math.floorMod(dst % group - src % group, group);
        }

        /** The channel part {@code part} of round {@code round} runs on. */
        int channel(int round, int part, int channels) {
            int base = acrossNodes ? round / group * ((group + PEERS_PER_BATCH - 1) / PEERS_PER_BATCH)
                    + round % group / PEERS_PER_BATCH : round;
            int bits = Integer.numberOfTrailingZeros(channels);
            int reversed = bits == 0 ? 0 : Integer.reverse(base) >>> (32 - bits);
            return (reversed + part) & (channels - 1);
        }

        private static int gcd(int a, int b) {
            return b == 0 ? a : gcd(b, a % b);
        }
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (!req.op().pointToPoint()) {
            throw new IllegalArgumentException(req.op().ncclName() + " is not a point-to-point operation");
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int n = req.nRanks();
        Rounds rounds = new Rounds(n, ranksPerNode);
        long block = req.bytesPerRankSegment();
        int window = Protocol.STEPS;
        long chunk = req.protocol() == Protocol.SIMPLE ? chunkBytes : Protocol.LL.stepDataBytes();
        if (rounds.acrossNodes && req.protocol() == Protocol.SIMPLE) {
            chunk = block < chunkBytes ? chunk / 4 : block < 8 * chunkBytes ? chunk / 2 : chunk;
        }
        int parts = Math.max(1, req.channels());
        int channels = Math.max(p2pChannels, Integer.highestOneBit(parts * 2 - 1));
        long partBytes = (block + parts - 1) / parts;
        partBytes = (partBytes + PART_ALIGN - 1) / PART_ALIGN * PART_ALIGN;
        boolean alltoall = req.op() == CollectiveOp.ALL_TO_ALL;
        int[] kept = new int[n];
        if (alltoall) {
            for (int src = 0; src < n; src++) {
                kept[src] = b.piece((long) src * req.bytes() + (long) src * block, block, src, src);
            }
        }
        // Per round and part, every rank's first and last transfer: the batches' order is added after.
        int roundCount = alltoall ? n : 1;
        int[][] first = new int[roundCount * parts][];
        int[][] last = new int[roundCount * parts][];
        for (int round = 0; round < roundCount; round++) {
            if (alltoall && round == 0) {
                continue; // the rank's own block
            }
            for (int part = 0; part < parts; part++) {
                int[] f = first[round * parts + part] = new int[n];
                int[] l = last[round * parts + part] = new int[n];
                Arrays.fill(f, -1);
                Arrays.fill(l, -1);
                long lo = part * partBytes;
                long hi = Math.min(block, lo + partBytes);
                for (int src = 0; src < n; src++) {
                    int dst = alltoall ? rounds.sendPeer(src, round) : (src + 1) % n;
                    int sendRound = alltoall ? round : rounds.round(src, dst);
                    int channel = rounds.channel(sendRound, part, channels);
                    long base = (long) src * req.bytes() + (alltoall ? (long) dst * block : 0);
                    IntList conn = new IntList();
                    for (long off = lo; off < hi; off += chunk) {
                        int piece = b.piece(base + off, Math.min(chunk, hi - off), src, dst);
                        int t = b.transfer(channel, sendRound, src, dst, piece, false);
                        if (l[src] >= 0) {
                            b.afterSend(t, l[src]);
                        } else {
                            f[src] = t;
                        }
                        if (conn.size() >= window) {
                            b.afterDelivery(t, conn.get(conn.size() - window));
                        }
                        conn.add(t);
                        l[src] = t;
                    }
                }
            }
        }
        if (alltoall) {
            orderBatches(b, rounds, parts, channels, first, last, kept);
        }
        return b.build();
    }

    /**
     * A rank's batch on a channel starts when the channel's previous batch there has ended: a barrier
     * (a local copy of no bytes) waits for that batch's sends to have left and its receives to have
     * arrived, and the next batch's sends wait for the barrier.
     */
    private static void orderBatches(ScheduleBuilder b, Rounds rounds, int parts, int channels,
                                     int[][] first, int[][] last, int[] kept) {
        int n = rounds.n;
        for (int rank = 0; rank < n; rank++) {
            int[] openBatch = new int[channels];
            Arrays.fill(openBatch, -1);
            int[] gate = new int[channels];
            Arrays.fill(gate, -1);
            IntList[] sent = new IntList[channels];
            IntList[] arrived = new IntList[channels];
            for (int round = 1; round < n; round++) {
                int batch = round / PEERS_PER_BATCH;
                for (int part = 0; part < parts; part++) {
                    int send = last[round * parts + part][rank];
                    int recv = last[round * parts + part][rounds.recvPeer(rank, round)];
                    if (send < 0 && recv < 0) {
                        continue; // an empty part: no work on this channel
                    }
                    int c = rounds.channel(round, part, channels);
                    if (openBatch[c] != batch) {
                        if (openBatch[c] >= 0) {
                            gate[c] = b.localCopy(c, round, rank, kept[rank], 0);
                            for (int k = 0; k < sent[c].size(); k++) {
                                b.afterSend(gate[c], sent[c].get(k));
                            }
                            for (int k = 0; k < arrived[c].size(); k++) {
                                b.afterDelivery(gate[c], arrived[c].get(k));
                            }
                        }
                        openBatch[c] = batch;
                        sent[c] = new IntList();
                        arrived[c] = new IntList();
                    }
                    if (send >= 0) {
                        if (gate[c] >= 0) {
                            b.afterDelivery(first[round * parts + part][rank], gate[c]);
                        }
                        sent[c].add(send);
                    }
                    if (recv >= 0) {
                        arrived[c].add(recv);
                    }
                }
            }
        }
    }
}
