package dev.collsim.core.input;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a user's input file as UTF-8 text, or says in one line why not: missing, a directory,
 * unreadable, too large, or not text (naming the line of the first byte that is not UTF-8). Files as
 * people save them read as the plain file: a byte-order mark (Excel's CSV, Windows tools) is dropped,
 * and Windows (CR LF) and old Mac (CR) line ends become LF, so every reader behind this one (CSV,
 * nccl-tests logs, {@code nvidia-smi topo -m}, NCCL's XML, YAML, JSON) sees the same text.
 */
public final class TextFile {
    /** Input files are hand-written configurations and logs; anything larger is a mistake. */
    public static final long MAX_BYTES = 64L << 20;

    private TextFile() {
    }

    /** The whole file as a string. */
    public static String read(Path path) {
        return read(path, path.toString());
    }

    /** The whole file as a string; errors call it {@code name}. */
    public static String read(Path path, String name) {
        byte[] bytes;
        try {
            if (Files.isDirectory(path)) {
                throw new InputException(name + ": is a directory, expected a file");
            }
            long size = Files.size(path);
            if (size > MAX_BYTES) {
                throw new InputException(name + ": " + size + " bytes; input files are read up to " + MAX_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            throw new InputException(name + ": cannot read (no such file)");
        } catch (AccessDeniedException e) {
            throw new InputException(name + ": cannot read (permission denied)");
        } catch (IOException e) {
            throw new InputException(name + ": cannot read (" + e.getMessage() + ")");
        }
        return decode(bytes, name);
    }

    /** The file's lines, without their line ends. */
    public static List<String> lines(Path path) {
        return read(path).lines().toList();
    }

    /** Decodes UTF-8 strictly (a malformed byte is reported with its line), then drops a byte-order mark and makes every line end LF. */
    public static String decode(byte[] bytes, String name) {
        try {
            return plain(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            int bad = firstInvalid(bytes);
            int line = 1;
            for (int i = 0; i < bad; i++) {
                line += bytes[i] == '\n' ? 1 : 0;
            }
            throw new InputException(name + ":" + line + ": not UTF-8 text (byte 0x"
                    + String.format("%02x", bytes[Math.min(bad, bytes.length - 1)] & 0xff) + "); save the file as UTF-8");
        }
    }

    /** The text without a leading byte-order mark, its line ends LF. */
    static String plain(String text) {
        String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
        return t.indexOf('\r') < 0 ? t : t.replace("\r\n", "\n").replace('\r', '\n');
    }

    /** Offset of the first byte that does not start a valid UTF-8 sequence. */
    private static int firstInvalid(byte[] b) {
        int i = 0;
        while (i < b.length) {
            int c = b[i] & 0xff;
            int n = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : -1;
            if (n < 0) {
                return i;
            }
            for (int k = 1; k <= n; k++) {
                if (i + k >= b.length || (b[i + k] & 0xc0) != 0x80) {
                    return i;
                }
            }
            i += n + 1;
        }
        return Math.max(0, b.length - 1); // an overlong form or a surrogate: the decoder knows, the scan does not
    }
}
