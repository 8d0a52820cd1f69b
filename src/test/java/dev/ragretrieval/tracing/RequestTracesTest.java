package dev.ragretrieval.tracing;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Traces of requests: Application + in-process Qdrant and Cohere, spans in memory")
class RequestTracesTest {

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER = "00f067aa0ba902b7";
  private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + CALLER + "-01";

  private TraceRecorder recorder;
  private Vertx vertx;
  private TestStack stack;

  @BeforeEach
  void start() {
    recorder = new TraceRecorder();
    vertx = recorder.vertx();
    stack = await(TestStack.start(vertx, Map.of()));
  }

  @AfterEach
  void stop() {
    await(stack.close());
    await(vertx.close());
    recorder.close();
  }

  @Test
  @DisplayName("dump")
  void dump() throws Exception {
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve").putHeader("traceparent", TRACEPARENT)
        .sendJsonObject(new JsonObject().put("query", "How do nodes exchange messages on topics?").put("top_k", 3)));
    assertThat(response.statusCode()).isEqualTo(200);
    Thread.sleep(500);
    System.out.println("RESPONSE traceparent " + response.getHeader("traceparent"));
    System.out.println(TraceRecorder.tree(recorder.trace(TRACE_ID)));
    System.out.println(TraceRecorder.tree(recorder.spans()));
  }
}
