/**
 * Replications of a stochastic bench or decode run: each replication's draws from the run's
 * variability, and every quantity summarised over them (mean, median, p99, 95 % interval).
 */
package dev.collsim.scenarios.replications;
