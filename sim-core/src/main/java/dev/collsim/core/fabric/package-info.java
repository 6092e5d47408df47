/**
 * The physical fabric: an immutable graph of devices (GPU, NVSwitch, PCIe switch, CPU, NIC,
 * network switch) and directed links with per-direction rates and latencies, and the routes
 * between devices. Built by {@link dev.collsim.core.fabric.FabricBuilder}, which validates, then frozen.
 */
package dev.collsim.core.fabric;
