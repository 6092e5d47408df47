package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NamedSystemTest {
    @Test
    void theFlatSwitchIsFoundBesideThePresetsIgnoringCase() {
        assertEquals(FlatSwitch.Family.FLAT_SWITCH, NamedSystem.byName("Flat-Switch"));
        assertEquals(SystemPreset.HGX_H100, NamedSystem.byName("HGX-H100"));
        assertTrue(NamedSystem.find("nvl999").isEmpty());
    }

    /** The error lists the presets, as it did before the flat switch was registered: golden outputs pin it. */
    @Test
    void anUnknownNameIsThePresetsError() {
        InputException e = assertThrows(InputException.class, () -> NamedSystem.byName("nvl999"));
        assertEquals(assertThrows(InputException.class, () -> SystemPreset.byName("nvl999")).getMessage(), e.getMessage());
        assertFalse(e.getMessage().contains(FlatSwitch.NAME));
    }

    @Test
    void everyNameIsTakenOnce() {
        Set<String> ids = new HashSet<>();
        NamedSystem.all().forEach(s -> assertTrue(ids.add(s.id().toLowerCase(Locale.ROOT)), s.id()));
        assertEquals(SystemPreset.values().length + 1, ids.size());
    }
}
