package dev.collsim.scenarios.load;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.ExpertParallel;
import dev.collsim.scenarios.decode.Overlap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What runs where, in the words {@code serve} prints, so a plan can be pasted back: an aggregated
 * instance ({@code tp8 b256}, {@code tp4 dp2 ep8 b128 two-batch, chunks of 2048}) or xP prefill and
 * yD decode instances ({@code 3P tp2 pp4 + 2D tp1 dp16 ep16 b64}, {@code 1P tp8 x4 + 2D tp8 b64}).
 *
 * <p>{@code bN} caps the sequences a replica runs at once (the engine's max_num_seqs / max_running_requests /
 * max_batch_size); {@code xN} the prompts a prefill instance takes in one forward; {@code chunks of N} the
 * tokens a step's prefill takes (chunked prefill's size; {@code whole prompts}: no chunking). A dense model's
 * {@code dpN} is N replicas behind the router; an MoE model's {@code dpN epM} is one instance whose N attention
 * replicas step together (DP attention, the experts spread over all of them).
 */
public record Deployment(List<Role> roles) {
    public enum Kind {
        AGGREGATED, PREFILL, DECODE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One kind of instance.
     *
     * @param instances how many of them
     * @param maxBatch  sequences a replica runs at once, or 0 for the engine's default
     * @param prompts   prompts a prefill forward takes, or 0 for as many as the token budget allows
     * @param chunk     prefill tokens a step takes, 0 for the engine's default, or {@link #WHOLE} for whole prompts
     * @param exchange  how its MoE tokens reach their experts' ranks where it names it (the word {@code a2a}: NCCL's
     *                  all-to-all; {@code deepep}: DeepEP's kernels), or null: as {@code --all2all} says
     */
    public record Role(Kind kind, int instances, int tp, int pp, int ep, int dp, int maxBatch, int prompts, int chunk, Overlap overlap,
                       ExpertParallel.Exchange exchange) {
        public static final int WHOLE = Integer.MAX_VALUE;

        public int gpus() {
            return tp * pp * dp;
        }

        /** As serve prints it. */
        public String label() {
            StringBuilder s = new StringBuilder();
            if (kind != Kind.AGGREGATED) {
                s.append(instances).append(kind == Kind.PREFILL ? "P " : "D ");
            }
            s.append("tp").append(tp);
            if (pp > 1) {
                s.append(" pp").append(pp);
            }
            if (dp > 1) {
                s.append(" dp").append(dp);
            }
            if (ep > 1) {
                s.append(" ep").append(ep);
            }
            if (prompts > 0) {
                s.append(" x").append(prompts);
            }
            if (maxBatch > 0) {
                s.append(" b").append(maxBatch);
            }
            if (overlap != Overlap.NONE) {
                s.append(' ').append(overlap.label());
            }
            if (exchange != null) {
                s.append(' ').append(exchange.deploymentWord());
            }
            if (chunk == WHOLE) {
                s.append(", whole prompts");
            } else if (chunk > 0) {
                s.append(", chunks of ").append(chunk);
            }
            return s.toString();
        }
    }

    public Deployment {
        roles = List.copyOf(roles);
    }

    public boolean disaggregated() {
        return roles.get(0).kind() != Kind.AGGREGATED;
    }

    public Role role(Kind kind) {
        return roles.stream().filter(r -> r.kind() == kind).findFirst().orElseThrow();
    }

    public int gpus() {
        return roles.stream().mapToInt(r -> r.instances() * r.gpus()).sum();
    }

    public String label() {
        return String.join(" + ", roles.stream().map(Role::label).toList());
    }

    private static final Pattern COUNT = Pattern.compile("(\\d+)([PD])", Pattern.CASE_INSENSITIVE);
    private static final Pattern KNOB = Pattern.compile("(tp|pp|dp|ep|b|x)(\\d+)", Pattern.CASE_INSENSITIVE);
    private static final Pattern CHUNKS = Pattern.compile("chunks of (\\d+)", Pattern.CASE_INSENSITIVE);

    /** Reads a deployment; a word it does not know is a one-line error naming it. */
    public static Deployment parse(String text) {
        String flag = "--deployment '" + text + "'";
        String[] parts = text.trim().split("\\s*\\+\\s*");
        if (parts.length > 2 || text.isBlank()) {
            throw new InputException(flag + ": expected one instance (tp8 b256) or prefill and decode instances (2P tp8 + 3D tp8 b64)");
        }
        List<Role> roles = new ArrayList<>();
        for (String part : parts) {
            roles.add(role(flag, part, parts.length == 2));
        }
        if (parts.length == 2 && (roles.get(0).kind() != Kind.PREFILL || roles.get(1).kind() != Kind.DECODE)) {
            throw new InputException(flag + ": expected the prefill instances first and the decode instances second (2P tp8 + 3D tp8 b64)");
        }
        return new Deployment(roles);
    }

    private static Role role(String flag, String part, boolean disaggregated) {
        String[] clauses = part.split("\\s*,\\s*");
        if (clauses.length > 2) {
            throw new InputException(flag + ": '" + part + "' has more than one ', ' clause; expected at most ', chunks of N' or ', whole prompts'");
        }
        int chunk = 0;
        if (clauses.length == 2) {
            Matcher c = CHUNKS.matcher(clauses[1]);
            if (c.matches()) {
                chunk = positive(flag, "chunks of", c.group(1));
            } else if (clauses[1].equalsIgnoreCase("whole prompts")) {
                chunk = Role.WHOLE;
            } else {
                throw new InputException(flag + ": '" + clauses[1] + "': expected 'chunks of N' or 'whole prompts'");
            }
        }
        Kind kind = Kind.AGGREGATED;
        int instances = 1;
        int tp = 1;
        int pp = 1;
        int dp = 1;
        int ep = 1;
        int batch = 0;
        int prompts = 0;
        Overlap overlap = Overlap.NONE;
        ExpertParallel.Exchange exchange = null;
        boolean first = true;
        boolean sawTp = false;
        for (String word : clauses[0].trim().split("\\s+")) {
            Matcher count = COUNT.matcher(word);
            Matcher knob = KNOB.matcher(word);
            if (first && count.matches()) {
                kind = count.group(2).equalsIgnoreCase("P") ? Kind.PREFILL : Kind.DECODE;
                instances = positive(flag, word, count.group(1));
            } else if (knob.matches()) {
                int v = positive(flag, word, knob.group(2));
                switch (knob.group(1).toLowerCase(Locale.ROOT)) {
                    case "tp" -> {
                        tp = v;
                        sawTp = true;
                    }
                    case "pp" -> pp = v;
                    case "dp" -> dp = v;
                    case "ep" -> ep = v;
                    case "b" -> batch = v;
                    default -> prompts = v;
                }
            } else if (word.equalsIgnoreCase("two-batch") || word.equalsIgnoreCase("fused")) {
                overlap = Overlap.fromName(word);
            } else if (word.equalsIgnoreCase("a2a") || word.equalsIgnoreCase("deepep")) {
                exchange = word.equalsIgnoreCase("a2a") ? ExpertParallel.Exchange.ALLTOALL : ExpertParallel.Exchange.DEEPEP;
            } else {
                throw new InputException(flag + ": '" + word + "': expected NP or ND (instances), tpN, ppN, dpN, epN, bN (sequences a replica runs),"
                        + " xN (prompts a prefill forward takes), two-batch, fused, a2a or deepep");
            }
            first = false;
        }
        if (!sawTp) {
            throw new InputException(flag + ": '" + part + "' has no tpN; expected e.g. tp8");
        }
        if (disaggregated && kind == Kind.AGGREGATED) {
            throw new InputException(flag + ": '" + part + "' needs a count of prefill (NP) or decode (ND) instances");
        }
        if (!disaggregated && kind != Kind.AGGREGATED) {
            throw new InputException(flag + ": '" + part + "' is one role; a disaggregated deployment names both: 2P tp8 + 3D tp8 b64");
        }
        if (prompts > 0 && kind != Kind.PREFILL) {
            throw new InputException(flag + ": x" + prompts + " is the prompts of a prefill forward; only prefill instances (NP) take it");
        }
        if (exchange != null && ep < 2) {
            throw new InputException(flag + ": '" + exchange.deploymentWord() + "' sends MoE tokens to their experts' ranks all-to-all; '" + part
                    + "' has no epN of 2 or more");
        }
        return new Role(kind, instances, tp, pp, ep, dp, batch, prompts, chunk, overlap, exchange);
    }

    private static int positive(String flag, String word, String digits) {
        try {
            int v = Integer.parseInt(digits);
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // too long for an int: the same message
        }
        throw new InputException(flag + ": '" + word + "': expected a whole number from 1 to " + Integer.MAX_VALUE);
    }
}
