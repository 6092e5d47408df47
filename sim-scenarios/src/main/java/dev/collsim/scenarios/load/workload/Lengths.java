package dev.collsim.scenarios.load.workload;

import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import umontreal.ssj.probdist.LognormalDist;
import umontreal.ssj.probdist.NormalDist;
import umontreal.ssj.randvar.UniformIntGen;
import umontreal.ssj.rng.RandomStream;

/**
 * How long each request's prompt or output is: one length for all, or a distribution drawn once per
 * request. Every draw is by inversion and takes exactly one number of its stream (none for a fixed
 * length), so request i's length is a function of the stream's i-th number alone: a seed gives the same
 * lengths whatever the other flags, and changing the distribution's parameters moves each length
 * monotonically instead of reshuffling them.
 */
public sealed interface Lengths {
    /** 16M tokens, as the command line's token counts: above any model's context. */
    int MAX_TOKENS = 1 << 24;

    /** One length, rounded to a whole number of tokens and clamped to [1, {@code max}]. */
    int draw(RandomStream stream, int max);

    /** The distribution's mean, before rounding and clamping, in tokens. */
    double mean();

    /** As the outputs say it, e.g. {@code 1024}, {@code uniform 900-1100}, {@code lognormal (mean 1000, sd 500)}. */
    String describe();

    /**
     * vLLM's {@code --random-range-ratio R}: a fixed length L becomes uniform whole numbers in
     * [floor(L(1-R)), ceil(L(1+R))], as vLLM's {@code RandomDataset.get_sampling_params} draws them
     * (vllm/benchmarks/datasets/random.py, vllm-project/vllm at 237145e: "Bounds use floor for low and ceil
     * for high", {@code rng.integers(low, high + 1)}, the output's low bound at least 1). The prompt's low
     * bound is also raised to 1 here, where vLLM refuses a prompt that could be empty. A distribution
     * already varies: refused.
     */
    default Lengths widened(String flag, double ratio) {
        if (ratio == 0) {
            return this;
        }
        if (!(this instanceof Fixed f)) {
            throw new InputException("--random-range-ratio widens a fixed length, as vLLM's random data set does; " + flag + " " + describe()
                    + " is already a distribution");
        }
        int lo = (int) Math.max(1, Math.floor(f.tokens() * (1 - ratio)));
        int hi = (int) Math.min(MAX_TOKENS, Math.max(1, Math.ceil(f.tokens() * (1 + ratio))));
        return lo == hi ? new Fixed(lo) : new Uniform(lo, hi);
    }

    /** Every request the same length. */
    record Fixed(int tokens) implements Lengths {
        @Override
        public int draw(RandomStream stream, int max) {
            return clamp(tokens, max);
        }

        @Override
        public double mean() {
            return tokens;
        }

        @Override
        public String describe() {
            return Integer.toString(tokens);
        }
    }

    /** Whole numbers from {@code lo} to {@code hi}, each as likely. */
    record Uniform(int lo, int hi) implements Lengths {
        @Override
        public int draw(RandomStream stream, int max) {
            return clamp(UniformIntGen.nextInt(stream, lo, hi), max);
        }

        @Override
        public double mean() {
            return (lo + (double) hi) / 2;
        }

        @Override
        public String describe() {
            return "uniform " + lo + "-" + hi;
        }
    }

    /** Normal of the given mean and standard deviation, in tokens. */
    record Normal(double mean, double sd) implements Lengths {
        @Override
        public int draw(RandomStream stream, int max) {
            return clamp(mean + sd * NormalDist.inverseF01(stream.nextDouble()), max);
        }

        @Override
        public String describe() {
            return "normal (mean " + number(mean) + ", sd " + number(sd) + ")";
        }
    }

    /**
     * Lognormal whose lengths have the given mean and standard deviation (not those of their logarithm,
     * which is how people describe a length distribution): the log's sigma^2 = ln(1 + sd^2/mean^2) and
     * mu = ln(mean) - sigma^2/2.
     */
    record Lognormal(double mean, double sd) implements Lengths {
        @Override
        public int draw(RandomStream stream, int max) {
            double u = stream.nextDouble();
            if (sd == 0) {
                return clamp(mean, max);
            }
            double sigma2 = Math.log1p(sd * sd / (mean * mean));
            return clamp(LognormalDist.inverseF(Math.log(mean) - sigma2 / 2, Math.sqrt(sigma2), u), max);
        }

        @Override
        public String describe() {
            return "lognormal (mean " + number(mean) + ", sd " + number(sd) + ")";
        }
    }

    /** The lengths of a file, each drawn as likely as the others (an empirical distribution). */
    record Empirical(String file, int[] values) implements Lengths {
        @Override
        public int draw(RandomStream stream, int max) {
            return clamp(values[UniformIntGen.nextInt(stream, 0, values.length - 1)], max);
        }

        @Override
        public double mean() {
            double sum = 0;
            for (int v : values) {
                sum += v;
            }
            return sum / values.length;
        }

        @Override
        public String describe() {
            return "file " + Path.of(file).getFileName() + " (" + values.length + " lengths, mean " + number(mean()) + ")";
        }
    }

    /**
     * A length flag's value: a token count ({@code 1024}, {@code 4k}), {@code uniform:LO-HI},
     * {@code normal:MEAN,SD}, {@code lognormal:MEAN,SD} or {@code file:PATH}; errors name {@code flag}.
     */
    static Lengths parse(String flag, String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        if (colon < 0) {
            return new Fixed(tokens(flag, text, t));
        }
        String kind = t.substring(0, colon).toLowerCase(Locale.ROOT);
        String args = t.substring(colon + 1).trim();
        String where = flag + " '" + text + "'";
        return switch (kind) {
            case "uniform" -> {
                String[] ends = args.split("-", -1);
                if (ends.length != 2) {
                    throw new InputException(where + ": expected uniform:LO-HI, e.g. uniform:512-2048");
                }
                int lo = tokens(flag, text, ends[0].trim());
                int hi = tokens(flag, text, ends[1].trim());
                if (lo > hi) {
                    throw new InputException(where + ": LO " + lo + " is above HI " + hi);
                }
                yield lo == hi ? new Fixed(lo) : new Uniform(lo, hi);
            }
            case "normal", "lognormal" -> {
                String[] p = args.split(",", -1);
                double mean = p.length == 2 ? decimal(p[0]) : Double.NaN;
                double sd = p.length == 2 ? decimal(p[1]) : Double.NaN;
                if (!(mean >= 1 && mean <= MAX_TOKENS) || !(sd >= 0 && sd <= MAX_TOKENS)) {
                    throw new InputException(where + ": expected " + kind + ":MEAN,SD in tokens, MEAN from 1 to " + MAX_TOKENS
                            + " and SD 0 or more, e.g. " + kind + ":1024,256");
                }
                yield kind.equals("normal") ? new Normal(mean, sd) : new Lognormal(mean, sd);
            }
            case "file" -> new Empirical(args, readFile(args));
            default -> throw new InputException(where + ": unknown distribution '" + kind + "'; expected a token count (1024 or 4k),"
                    + " uniform:LO-HI, normal:MEAN,SD, lognormal:MEAN,SD or file:PATH");
        };
    }

    /**
     * One length per line (blank lines skipped), or a CSV of one column whose first line may be its
     * header; each a whole number of tokens, 1 or more.
     */
    private static int[] readFile(String file) {
        String[] lines = TextFile.read(Path.of(file), file).split("\n", -1);
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            String v = lines[i].trim();
            boolean header = i == 0 && !v.isEmpty() && Character.isLetter(v.charAt(0)) && v.indexOf(',') < 0;
            if (v.isEmpty() || header) {
                continue;
            }
            if (v.indexOf(',') >= 0) {
                throw new InputException(file + ": line " + (i + 1) + ": " + v.split(",", -1).length + " columns; expected one length per line");
            }
            long n = v.matches("-?\\d{1,10}") ? Long.parseLong(v) : -1;
            if (n < 1 || n > MAX_TOKENS) {
                throw new InputException(file + ": line " + (i + 1) + ": length '" + v + "': expected a whole number of tokens from 1 to " + MAX_TOKENS);
            }
            values.add((int) n);
        }
        if (values.isEmpty()) {
            throw new InputException(file + ": line 1: no lengths; expected one whole number of tokens per line");
        }
        return values.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A token count as the command line writes them: a whole number, or one with k (x1024) or m (x1048576). */
    private static int tokens(String flag, String text, String t) {
        String s = t.toLowerCase(Locale.ROOT);
        int shift = s.endsWith("k") ? 10 : s.endsWith("m") ? 20 : 0;
        String digits = shift == 0 ? s : s.substring(0, s.length() - 1);
        long n = digits.matches("\\d{1,10}") ? Long.parseLong(digits) << shift : -1;
        if (n < 1 || n > MAX_TOKENS) {
            throw new InputException(flag + " '" + text + "': '" + t + "' is not a token count from 1 to " + MAX_TOKENS
                    + "; expected e.g. 1024 or 4k, or a distribution: uniform:LO-HI, normal:MEAN,SD, lognormal:MEAN,SD, file:PATH");
        }
        return (int) n;
    }

    private static double decimal(String s) {
        try {
            return Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** Rounded to whole tokens, then into [1, max]. */
    private static int clamp(double tokens, int max) {
        long n = Math.round(tokens);
        return (int) Math.max(1, Math.min(max, n));
    }

    private static String number(double x) {
        return x == Math.rint(x) ? Long.toString((long) x) : String.format(Locale.ROOT, "%.4g", x);
    }
}
