/** The hardware catalogue: GPUs, NVLink generations and per-protocol channel costs, each with its source. */
package dev.collsim.topologies.catalog;
