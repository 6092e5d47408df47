/**
 * Kernels on a GPU's streams, in time on the discrete-event engine: each stream runs its kernels
 * in issue order, a kernel starts once its stream is free and what it waits on has ended, and a
 * compute kernel shares the SMs with the collectives running beside it. Depends on the engine only.
 */
package dev.collsim.core.compute;
