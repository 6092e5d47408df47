package dev.collsim.scenarios.properties;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Every parser of user input, fed random text (a fixed seed here; {@link FuzzForAWhileTest} runs the
 * same for longer on a random one): it returns or throws the project's InputException, never anything
 * else (no NullPointerException, NumberFormatException, parser-library exception).
 */
class ParserPropertiesTest {
    static final int INPUTS = 2000;

    @Test
    void parsersRaiseOnlyInputException() {
        Random r = new Random(20261129);
        for (int i = 0; i < INPUTS; i++) {
            String text = FuzzForAWhileTest.randomText(r);
            try {
                FuzzForAWhileTest.parseAll(text);
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("input " + text.replace("\n", "\\n") + " -> " + e, e);
            }
        }
    }
}
