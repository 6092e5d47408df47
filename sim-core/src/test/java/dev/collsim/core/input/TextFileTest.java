package dev.collsim.core.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TextFileTest {
    @TempDir
    Path dir;

    private Path file(String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    @Test
    void aByteOrderMarkAndWindowsLineEndsReadAsThePlainFile() throws IOException {
        String plain = "row_id,model\n1,llama\n2,mixtral\n";
        byte[] bom = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf};
        byte[] windows = plain.replace("\n", "\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] excel = new byte[bom.length + windows.length];
        System.arraycopy(bom, 0, excel, 0, bom.length);
        System.arraycopy(windows, 0, excel, bom.length, windows.length);
        assertEquals(plain, TextFile.read(file("excel.csv", excel)));
        assertEquals(plain, TextFile.read(file("windows.csv", windows)));
        assertEquals(plain, TextFile.read(file("mac.csv", plain.replace("\n", "\r").getBytes(StandardCharsets.UTF_8))));
        assertEquals(List.of("row_id,model", "1,llama", "2,mixtral"), TextFile.lines(file("lines.csv", excel)));
    }

    @Test
    void aByteOrderMarkInsideTheTextIsLeftAlone() {
        assertEquals("a\uFEFFb", TextFile.plain("\uFEFFa\uFEFFb"));
    }

    @Test
    void aFileThatIsNotUtf8NamesItsLine() throws IOException {
        Path p = file("latin1.txt", new byte[] {'o', 'k', '\r', '\n', (byte) 0xe9, '\n'});
        InputException e = assertThrows(InputException.class, () -> TextFile.read(p));
        assertTrue(e.getMessage().contains(":2: not UTF-8"), e.getMessage());
    }
}
