package dev.collsim.scenarios;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The module's packages depend on each other in one direction only: no package cycle, views above the
 * models, and the models print nothing: every table, JSON document, report and verdict is a view's.
 */
class PackageCyclesTest {
    /** The workloads' models: they compute typed results and leave every output to {@code views}. */
    private static final String[] MODELS = {"dev.collsim.scenarios.bench..", "dev.collsim.scenarios.decode..",
        "dev.collsim.scenarios.serve..", "dev.collsim.scenarios.serveload..", "dev.collsim.scenarios.compare..", "dev.collsim.scenarios.explain..",
        "dev.collsim.scenarios.validate..", "dev.collsim.scenarios.replications..", "dev.collsim.scenarios.stochastic..",
        "dev.collsim.scenarios.metrics.."};

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.collsim.scenarios");

    /** The classes of a model package that read an input file, and the classes nested in them. */
    private static final DescribedPredicate<JavaClass> INPUT_READERS = DescribedPredicate.describe(
            "read input files (ModelConfig, CalibrationSet, DecodeValidation, ServingValidation)",
            c -> Set.of("ModelConfig", "CalibrationSet", "DecodeValidation", "ServingValidation").contains(topLevel(c).getSimpleName()));

    private static JavaClass topLevel(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("dev.collsim.scenarios.(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void theModelsBuildNoTableAndNoJson() {
        noClasses().that().resideInAnyPackage(MODELS)
                .should().dependOnClassesThat().resideInAnyPackage("dev.collsim.reports..").check(CLASSES);
    }

    /** Jackson reads input files (a model's config.json, the calibration files); it writes nothing outside the views. */
    @Test
    void onlyTheInputReadersOfTheModelsUseJackson() {
        noClasses().that().resideInAnyPackage(MODELS).and(INPUT_READERS.negate())
                .should().dependOnClassesThat().resideInAnyPackage("com.fasterxml.jackson..").check(CLASSES);
    }

    @Test
    void noSerializationAnnotationsOutsideTheViewsAndTheCommandLine() {
        noClasses().that().resideOutsideOfPackages("dev.collsim.scenarios.cli..", "dev.collsim.scenarios.views..")
                .should().dependOnClassesThat().resideInAnyPackage("com.fasterxml.jackson.annotation..").check(CLASSES);
    }

    @Test
    void onlyTheCommandLineUsesTheViews() {
        noClasses().that().resideOutsideOfPackages("dev.collsim.scenarios.cli..", "dev.collsim.scenarios.views..")
                .should().dependOnClassesThat().resideInAPackage("dev.collsim.scenarios.views..").check(CLASSES);
    }
}
