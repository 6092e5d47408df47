/** JMH benchmarks, each measured beside a baseline in the same run. Not part of the test suite. */
package dev.collsim.bench;
