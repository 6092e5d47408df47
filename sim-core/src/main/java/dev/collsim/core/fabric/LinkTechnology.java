package dev.collsim.core.fabric;

import java.util.Locale;

/** What a link is made of, as far as the model tells them apart. */
public enum LinkTechnology {
    NVLINK,
    /** AMD's Infinity Fabric between GPUs (xGMI): a point-to-point link, which RCCL counts as NVIDIA's NVLink (LINK_NVL). */
    XGMI,
    PCIE,
    /** Between CPU sockets (UPI, xGMI). */
    SOCKET,
    /** A NIC's or a network switch's port. */
    NETWORK,
    /** Anything a file names otherwise. */
    OTHER;

    /**
     * The technology a free-form class names, for links described by files: NVLink wherever the
     * class says "NVLink" (in any case), xGMI where it says "xGMI", PCIe where it says "PCIe", otherwise {@link #OTHER}.
     */
    public static LinkTechnology named(String linkClass) {
        String c = linkClass.toLowerCase(Locale.ROOT);
        return c.contains("nvlink") ? NVLINK : c.contains("xgmi") ? XGMI : c.contains("pcie") ? PCIE : OTHER;
    }

    /** The lane or link count a class such as {@code NVLink4 x18} ends in; 1 without one. */
    public static int lanesNamed(String linkClass) {
        int x = linkClass.lastIndexOf(" x");
        if (x < 0) {
            return 1;
        }
        try {
            return Math.max(1, Integer.parseInt(linkClass.substring(x + 2).trim()));
        } catch (NumberFormatException e) {
            return 1;
        }
    }
}
