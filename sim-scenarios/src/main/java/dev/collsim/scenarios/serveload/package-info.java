/**
 * Serving plans decided on load runs: the estimate's search ({@code serve}) proposes deployments, the
 * request-by-request simulation ({@code load}) measures their tails. Apart from both so that neither
 * depends on the other.
 */
package dev.collsim.scenarios.serveload;
