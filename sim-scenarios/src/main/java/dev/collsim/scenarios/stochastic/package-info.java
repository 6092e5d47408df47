/**
 * What varies between replications (launch and step jitter, a straggler, an outage), each source on
 * its own random stream; the models below (bench, decode) draw from it, the replications above run them.
 */
package dev.collsim.scenarios.stochastic;
