/**
 * What users read, built from the workloads' results: text and CSV tables, the HTML report's
 * sections and the Perfetto traces. The models (bench, decode, compare, explain, sweep) never
 * depend on this package.
 */
package dev.collsim.scenarios.views;
