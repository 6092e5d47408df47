package dev.collsim.scenarios.validate;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.Speculation;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A calibration row's speculative decoding as its {@code spec_decode} column states it, in the spellings sources use: the
 * method ({@code mtp}, {@code nextn}, {@code eagle}, {@code eagle3}), the drafts a step ({@code mtp:3}, {@code MTP-3},
 * {@code num_speculative_tokens=3}, SGLang's {@code speculative-num-steps 3}, {@code 3 draft tokens}) and the acceptance the
 * source measured: a length, the tokens a step keeps ({@code accept 2.4}, {@code acceptance length 2.4}, {@code @2.4}), or
 * vLLM's acceptance rate, the share of drafts accepted ({@code acceptance rate 81%}: 1 + 0.81 K tokens a step). Where the
 * column gives no acceptance the row's notes are read for one; a row with none cannot be simulated and says so.
 */
final class SpecDecodeColumn {
    private SpecDecodeColumn() {}

    private static final int FLAGS = Pattern.CASE_INSENSITIVE;
    private static final Pattern METHOD = Pattern.compile("\\b(mtp|nextn|eagle-?3?)", FLAGS);
    // eagle3's 3 is its version, never a draft count: the method's name is taken whole (possessive) before the count.
    private static final Pattern DRAFTS = Pattern.compile("(?:mtp|nextn|eagle(?:-?3)?+)\\s*[:=_-]?\\s*(\\d+)(?![.\\d])"
            + "|num[_ -]speculative[_ -]tokens\\s*[=:]?\\s*(\\d+)|speculative[_ -]num[_ -]steps\\s*[=:]?\\s*(\\d+)|(\\d+)\\s*draft", FLAGS);
    private static final Pattern RATE = Pattern.compile("accept(?:ance)?[_ -]*rate\\s*[=:]?\\s*(\\d+(?:\\.\\d+)?)\\s*(%?)", FLAGS);
    private static final Pattern LENGTH = Pattern.compile("accept(?:ance)?(?:[_ -]*(?:length|len))?\\s*[=:]?\\s*(\\d+(?:\\.\\d+)?)|@\\s*(\\d+(?:\\.\\d+)?)",
            FLAGS);

    /** {@code column} (blank or none: plain decoding), its acceptance from {@code notes} where the column has none. */
    static Speculation read(String column, String notes) {
        if (column == null || column.isBlank() || column.trim().equalsIgnoreCase("none")) {
            return Speculation.NONE;
        }
        String text = column.trim();
        Matcher method = METHOD.matcher(text);
        Matcher drafts = DRAFTS.matcher(text);
        if (!method.find() || !drafts.find()) {
            throw new InputException("speculative decoding '" + text + "': expected a method (mtp, nextn, eagle, eagle3) and its draft"
                    + " tokens a step (mtp:3)");
        }
        String name = method.group(1).toLowerCase(Locale.ROOT).startsWith("eagle") ? "eagle" : "mtp";
        int k = Integer.parseInt(firstGroup(drafts));
        Double accept = acceptance(text, k);
        if (accept == null && notes != null) {
            accept = acceptance(notes, k);
        }
        if (accept == null) {
            throw new InputException("speculative decoding '" + text + "' without an acceptance collsim can read (accept A, acceptance"
                    + " length A, acceptance rate R%) in the column or the notes");
        }
        try {
            return Speculation.parse(name + ":" + k, accept);
        } catch (InputException e) {
            throw new InputException("speculative decoding '" + text + "': " + e.getMessage());
        }
    }

    /** The tokens a step keeps as {@code text} states them, or null. */
    private static Double acceptance(String text, int drafts) {
        Matcher rate = RATE.matcher(text);
        if (rate.find()) {
            double r = Double.parseDouble(rate.group(1));
            return 1 + (rate.group(2).isEmpty() && r <= 1 ? r : r / 100) * drafts;
        }
        Matcher length = LENGTH.matcher(text);
        return length.find() ? Double.valueOf(firstGroup(length)) : null;
    }

    private static String firstGroup(Matcher m) {
        for (int g = 1; g <= m.groupCount(); g++) {
            if (m.group(g) != null) {
                return m.group(g);
            }
        }
        throw new IllegalStateException("a match with no group");
    }
}
