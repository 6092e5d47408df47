package dev.collsim.scenarios.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an option whose value is a file the command writes. {@link RunFiles} checks every such file
 * against the run's inputs and its other outputs before the command starts.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
@interface OutputFile {
    /** The endings the file's name may have (any when empty), e.g. {@code ".html"} for a report. */
    String[] endings() default {};
}
