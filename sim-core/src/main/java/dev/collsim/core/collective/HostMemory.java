package dev.collsim.core.collective;

/**
 * Where transfers that GPUs cannot make directly are staged in host memory: per rank, the fabric
 * device (a CPU) whose memory holds them.
 *
 * @param shm     for transfers inside a node without peer-to-peer access (NCCL's SHM transport), the
 *                receiver's host memory; null when every GPU reaches its peers directly
 * @param network for transfers across nodes without GPUDirect RDMA, the host memory of each end (the NIC
 *                reads from the sender's and writes to the receiver's); null with GPUDirect RDMA
 */
public record HostMemory(int[] shm, int[] network) {
    public HostMemory {
        shm = shm == null ? null : shm.clone();
        network = network == null ? null : network.clone();
    }

    /** Null when nothing is staged. */
    public static HostMemory of(int[] shm, int[] network) {
        return shm == null && network == null ? null : new HostMemory(shm, network);
    }

    @Override
    public int[] shm() {
        return shm == null ? null : shm.clone();
    }

    @Override
    public int[] network() {
        return network == null ? null : network.clone();
    }
}
