package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongIntMapTest {
    /** Random keys (negative ones and near-collisions included), some replaced: the same answers as a HashMap. */
    @Test
    void answersAsAHashMapDoesThroughGrowth() {
        Random rnd = new Random(3);
        LongIntMap map = new LongIntMap();
        Map<Long, Integer> expected = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            long key = rnd.nextBoolean() ? rnd.nextLong() : rnd.nextInt(5_000) * (1L << 32);
            int value = rnd.nextInt(Integer.MAX_VALUE);
            map.put(key, value);
            expected.put(key, value);
        }
        expected.forEach((k, v) -> assertEquals(v, map.get(k), "key " + k));
        for (int i = 0; i < 1_000; i++) {
            long key = rnd.nextLong();
            assertEquals(expected.getOrDefault(key, -1), map.get(key));
        }
    }

    @Test
    void refusesNegativeValues() {
        assertThrows(IllegalArgumentException.class, () -> new LongIntMap().put(1, -1));
    }
}
