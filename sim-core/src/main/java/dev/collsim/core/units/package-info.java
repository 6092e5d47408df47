/**
 * Value types for time (integer picoseconds), data size (bytes) and rate (bytes per second per
 * direction), and the parser that turns {@code 450GB/s}, {@code 400Gb/s}, {@code 1.5us},
 * {@code 4MiB} into them. A bare number is an error naming the accepted suffixes.
 */
package dev.collsim.core.units;
