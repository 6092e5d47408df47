package dev.collsim.scenarios;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module's packages depend on each other in one direction only: no package cycle, and views above the models. */
class PackageCyclesTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.collsim.scenarios");

    @Test
    void packagesFormNoCycle() {
        slices().matching("dev.collsim.scenarios.(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void onlyTheCommandLineUsesTheViews() {
        noClasses().that().resideOutsideOfPackages("dev.collsim.scenarios.cli..", "dev.collsim.scenarios.views..")
                .should().dependOnClassesThat().resideInAPackage("dev.collsim.scenarios.views..").check(CLASSES);
    }
}
