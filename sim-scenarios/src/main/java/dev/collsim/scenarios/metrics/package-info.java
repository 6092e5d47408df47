/**
 * The metric registry: every quantity a workload reports (its name, unit, JSON key, column title and how
 * to read it from a typed result) declared once, and read by the JSON and table views, sweeps and the
 * statistics of replications. Adding a metric is an entry here and, where the result does not yet
 * hold it, its extractor on the result.
 */
package dev.collsim.scenarios.metrics;
