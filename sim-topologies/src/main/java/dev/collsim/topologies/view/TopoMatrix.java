package dev.collsim.topologies.view;

import dev.collsim.core.fabric.Device;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.fabric.Route;

/**
 * How {@code nvidia-smi topo -m} would label the path between two GPUs of a fabric:
 * {@code NV#} over NVLink (# links, directly or through NVSwitch), {@code PIX} through one PCIe
 * switch, {@code PXB} through several, {@code PHB} through a CPU's host bridge, {@code SYS} across
 * the link between CPU sockets, {@code NET} through a network card.
 */
public final class TopoMatrix {
    private TopoMatrix() {}

    public static String label(Fabric fabric, int from, int to) {
        if (from == to) {
            return "X";
        }
        Route route = fabric.router().route(from, to);
        if (route.viaNic()) {
            return "NET";
        }
        int pcieSwitches = 0;
        int cpus = 0;
        for (int l : route.links()) {
            Link link = fabric.link(l);
            Device next = fabric.device(link.to());
            if (next.kind() == DeviceKind.PCIE_SWITCH) {
                pcieSwitches++;
            } else if (next.kind() == DeviceKind.CPU) {
                cpus++;
            }
        }
        boolean nvlink = nvlinkOnly(fabric, route);
        if (nvlink) {
            Link first = fabric.link(route.links()[0]);
            // rocm-smi --showtopo names an Infinity Fabric path XGMI, as nvidia-smi topo -m names NVLink NV#.
            return first.technology() == LinkTechnology.XGMI ? "XGMI" : "NV" + first.lanes();
        }
        if (cpus > 1) {
            return "SYS";
        }
        if (cpus == 1) {
            return "PHB";
        }
        return pcieSwitches > 1 ? "PXB" : "PIX";
    }

    /** Whether the GPUs reach each other over NVLink alone (directly or through NVSwitch). */
    public static boolean nvlinkOnly(Fabric fabric, int from, int to) {
        return from != to && nvlinkOnly(fabric, fabric.router().route(from, to));
    }

    private static boolean nvlinkOnly(Fabric fabric, Route route) {
        for (int l : route.links()) {
            if (!fabric.link(l).nvlink()) {
                return false;
            }
        }
        return true;
    }
}
