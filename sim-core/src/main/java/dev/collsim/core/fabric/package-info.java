/**
 * The physical fabric: an immutable graph of devices (GPU, NVSwitch, PCIe switch, CPU, NIC,
 * network switch) and directed links with per-direction rates and latencies, built by {@link
 * dev.collsim.core.fabric.FabricBuilder}, which validates, then frozen; and the routes between its
 * devices, found by a {@link dev.collsim.core.fabric.Router} under a {@link
 * dev.collsim.core.fabric.RoutingPolicy}.
 */
package dev.collsim.core.fabric;
