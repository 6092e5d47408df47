package dev.collsim.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TraceStreamTest {
    /** The same calls give the same trace as TraceEvents builds in memory, one event a line. */
    @Test
    void writesWhatTraceEventsBuilds() throws Exception {
        TraceEvents held = new TraceEvents().processName(1, "GPU 0").threadName(1, 2, "stream");
        held.slice("gemm", "compute", 1, 2, 10.5, 3).put("flops", 42);
        held.instant("first token", "request", 1, 2, 14);
        StringWriter out = new StringWriter();
        try (TraceStream streamed = new TraceStream(out, "ms").processName(1, "GPU 0").threadName(1, 2, "stream")) {
            streamed.slice("gemm", "compute", 1, 2, 10.5, 3).put("flops", 42);
            streamed.instant("first token", "request", 1, 2, 14);
        }
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(held.render("ms")), json.readTree(out.toString()));
        assertEquals(6, out.toString().lines().count(), out.toString());
        assertTrue(out.toString().contains("\n{\"name\":\"gemm\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":10.5,\"dur\":3.0,\"args\":{\"flops\":42}},\n"));
    }

    @Test
    void anEmptyTraceIsValid() throws Exception {
        StringWriter out = new StringWriter();
        new TraceStream(out, "ns").close();
        assertEquals("{\"traceEvents\":[\n],\"displayTimeUnit\":\"ns\"}\n", out.toString());
        new ObjectMapper().readTree(out.toString());
    }
}
