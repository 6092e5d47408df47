/**
 * The discrete-event loop. It knows time and events and nothing else: no fabric, flow or
 * collective type is imported here. Time is integer picoseconds; equal times run in scheduling
 * order, so a run is reproducible to the byte.
 */
package dev.collsim.core.engine;
