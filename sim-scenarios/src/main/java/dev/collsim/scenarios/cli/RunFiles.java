package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.AtomicFiles;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * One command's files, so that a run never loses a user's data. Every value on the command line that
 * names an existing file is an input; every option marked {@link OutputFile} is an output. Before the
 * command starts, no output may name an input or another output, and each must be a file name ending as
 * its option expects in a folder that can hold it. While it runs, the command stages what it writes
 * here; the files reach the disk only when it ends with exit code 0, all together (each atomically), so
 * a run that fails leaves nothing behind and never half of its outputs.
 *
 * <p>A run started from inside another ({@code collsim run FILE}) sees its parent's files as its own
 * inputs and outputs, and hands what it stages to the parent.
 */
final class RunFiles {
    private static final ThreadLocal<RunFiles> CURRENT = new ThreadLocal<>();

    private final RunFiles parent;
    /** The file each flag names, by where it is on disk (links resolved), in command-line order. */
    private final Map<Path, String> inputs = new LinkedHashMap<>();
    private final Map<Path, String> outputs = new LinkedHashMap<>();
    private final Map<Path, AtomicFiles.Content> staged = new LinkedHashMap<>();

    private RunFiles(RunFiles parent) {
        this.parent = parent;
    }

    /** The files of the command the parse result names, checked; it becomes the current run's until {@link #close}. */
    static RunFiles open(ParseResult parsed) {
        RunFiles files = new RunFiles(CURRENT.get());
        ParseResult leaf = parsed;
        while (leaf.subcommand() != null) {
            leaf = leaf.subcommand();
        }
        for (ArgSpec arg : leaf.commandSpec().args()) {
            OutputFile output = outputMark(arg);
            for (Object value : values(arg.getValue())) {
                if (output == null) {
                    files.input(value, arg);
                } else {
                    files.declareOutput(Path.of(value.toString()), flag(arg), output.endings());
                }
            }
        }
        CURRENT.set(files);
        return files;
    }

    /** The files of the command running on this thread. */
    static RunFiles current() {
        RunFiles files = CURRENT.get();
        if (files == null) {
            throw new IllegalStateException("no collsim command is running on this thread");
        }
        return files;
    }

    /**
     * An output the command writes itself as it goes (a sweep's results, appended point by point so an
     * interrupted sweep can resume): checked like the flagged outputs, not staged.
     */
    void declareOutput(Path file, String flag, String... endings) {
        if (endings.length > 0 && Arrays.stream(endings).noneMatch(e -> file.getFileName() != null && file.getFileName().toString().endsWith(e))) {
            throw new InputException(flag + " " + file + ": expected a file ending in " + String.join(" or ", endings));
        }
        if (Files.isDirectory(file)) {
            throw new InputException(flag + " " + file + ": is a folder; expected a file name");
        }
        requireWritableFolder(file, flag);
        Path where = where(file);
        String asInput = named(where, true);
        if (asInput != null) {
            throw new InputException(flag + " " + file + ": that is the input " + asInput + "; writing there would lose it, so choose another file");
        }
        String asOutput = named(where, false);
        if (asOutput != null) {
            throw new InputException(flag + " " + file + ": " + asOutput + " writes there too; give each output its own file");
        }
        outputs.put(where, flag + " " + file);
    }

    /** Keeps a file's content until the run ends well. */
    void write(Path file, String content) {
        write(file, AtomicFiles.Content.of(content));
    }

    /** Keeps a file whose content is written as it is made (a large trace) until the run ends well. */
    void write(Path file, AtomicFiles.Content content) {
        Path where = where(file);
        if (!outputs.containsKey(where)) {
            declareOutput(file, "output");
        }
        staged.put(file, content);
    }

    /** The run ended well: its files to disk (or to the run that started it). */
    void commit() {
        if (parent != null) {
            staged.forEach(parent.staged::put);
        } else {
            AtomicFiles.writeAllStreamed(staged);
        }
        staged.clear();
    }

    /** Ends this run's hold on the thread, whatever its outcome; what it staged and did not commit is dropped. */
    void close() {
        staged.clear();
        if (parent == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(parent);
        }
    }

    private void input(Object value, ArgSpec arg) {
        if (!(value instanceof Path || value instanceof String)) {
            return;
        }
        Path file;
        try {
            file = Path.of(value.toString());
        } catch (RuntimeException notAPath) {
            return; // a value with characters no file name has: not a file
        }
        if (Files.isRegularFile(file)) {
            inputs.putIfAbsent(where(file), flag(arg) + " " + file);
        }
    }

    /** Who names this place, among the inputs or the outputs, here or in the runs above; null when none. */
    private String named(Path where, boolean asInput) {
        for (RunFiles f = this; f != null; f = f.parent) {
            String by = (asInput ? f.inputs : f.outputs).get(where);
            if (by != null) {
                return by;
            }
        }
        return null;
    }

    private static void requireWritableFolder(Path file, String flag) {
        Path folder = file.toAbsolutePath().normalize().getParent();
        while (folder != null && !Files.exists(folder)) {
            folder = folder.getParent(); // AtomicFiles makes the missing folders
        }
        if (folder == null) {
            return;
        }
        if (!Files.isDirectory(folder)) {
            throw new InputException(flag + " " + file + ": " + folder + " is a file, not a folder");
        }
        if (!Files.isWritable(folder)) {
            throw new InputException(flag + " " + file + ": cannot write in the folder " + folder);
        }
    }

    /** Where a file is on disk: links resolved for what exists, so two names of one file are one place. */
    private static Path where(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        try {
            if (Files.exists(absolute)) {
                return absolute.toRealPath();
            }
            Path folder = absolute.getParent();
            return folder != null && Files.exists(folder) ? folder.toRealPath().resolve(absolute.getFileName()) : absolute;
        } catch (IOException e) {
            return absolute;
        }
    }

    private static OutputFile outputMark(ArgSpec arg) {
        return arg.userObject() instanceof Field field ? field.getAnnotation(OutputFile.class) : null;
    }

    private static String flag(ArgSpec arg) {
        return arg instanceof OptionSpec option ? option.longestName() : arg.paramLabel();
    }

    private static Collection<?> values(Object value) {
        if (value instanceof Collection<?> many) {
            return many.stream().filter(Objects::nonNull).toList();
        }
        if (value instanceof Object[] many) {
            return Arrays.stream(many).filter(Objects::nonNull).toList();
        }
        return value == null ? List.of() : List.of(value);
    }
}
