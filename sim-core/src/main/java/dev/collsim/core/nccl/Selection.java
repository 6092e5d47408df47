package dev.collsim.core.nccl;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A set of allowed values written as NCCL's environment lists are ({@code NCCL_ALGO},
 * {@code NCCL_PROTO}): {@code auto} for all, {@code ring,tree} for those, {@code ^nvls} for all but those.
 */
public final class Selection {
    private Selection() {}

    public static <E extends Enum<E>> Set<E> parse(String text, Class<E> type, Function<E, String> label, String what) {
        String s = text == null ? "" : text.trim();
        if (s.isEmpty() || s.equalsIgnoreCase("auto")) {
            return EnumSet.allOf(type);
        }
        boolean exclude = s.startsWith("^");
        if (exclude) {
            s = s.substring(1);
        }
        EnumSet<E> named = EnumSet.noneOf(type);
        for (String item : s.split(",")) {
            String name = item.trim();
            E match = Arrays.stream(type.getEnumConstants())
                    .filter(e -> label.apply(e).equalsIgnoreCase(name) || e.name().equalsIgnoreCase(name))
                    .findFirst()
                    .orElseThrow(() -> new InputException("unknown " + what + " '" + name + "'; expected auto, or a list of "
                            + Arrays.stream(type.getEnumConstants()).map(label).collect(Collectors.joining(", "))
                            + " (prefix ^ to exclude)"));
            named.add(match);
        }
        if (exclude) {
            EnumSet<E> rest = EnumSet.allOf(type);
            rest.removeAll(named);
            return rest;
        }
        return named;
    }
}
