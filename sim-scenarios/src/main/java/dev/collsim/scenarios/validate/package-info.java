/** Validation against measured nccl-tests runs: the calibration set, its set-ups, and the error tables. */
package dev.collsim.scenarios.validate;
