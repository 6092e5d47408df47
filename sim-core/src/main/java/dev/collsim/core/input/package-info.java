/** The project's single error type for bad input, with one-line messages. */
package dev.collsim.core.input;
