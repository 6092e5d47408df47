package dev.collsim.topologies;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module's packages depend on each other in one direction only: no package cycle. */
class PackageCyclesTest {
    @Test
    void packagesFormNoCycle() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.collsim.topologies");
        slices().matching("dev.collsim.topologies.(*)..").should().beFreeOfCycles().check(classes);
    }
}
