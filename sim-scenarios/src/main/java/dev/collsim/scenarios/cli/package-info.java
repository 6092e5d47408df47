/** The {@code collsim} command line (picocli): one class per subcommand, one-line errors with exit code 2. */
package dev.collsim.scenarios.cli;
