/** Views of a fabric for people: the {@code nvidia-smi topo -m} labels of GPU pairs. */
package dev.collsim.topologies.view;
