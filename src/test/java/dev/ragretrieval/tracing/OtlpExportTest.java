package dev.ragretrieval.tracing;

import static dev.ragretrieval.testing.Await.await;
import static dev.ragretrieval.testing.Await.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Tracing from the standard OTEL_* variables exports over OTLP (http/protobuf) to a collector stand-in")
class OtlpExportTest {

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String CALLER = "b7ad6b7169203331";

  /** What the collector stand-in received: each export's body and path. */
  private final List<byte[]> bodies = new CopyOnWriteArrayList<>();
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private Vertx collectorVertx;
  private Tracing tracing;
  private Vertx vertx;
  private TestStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
    if (vertx != null) {
      await(vertx.close());
    }
    if (tracing != null) {
      await(tracing.shutdown());
    }
    await(collectorVertx.close());
  }

  @Test
  @DisplayName("a request with a traceparent: server, cache miss, embed, Qdrant search and response spans arrive at the collector under the caller's trace id")
  void exportsOverOtlp() {
    collectorVertx = Vertx.vertx();
    HttpServer collector = await(collectorVertx.createHttpServer()
        .requestHandler(request -> request.body().onSuccess(body -> {
          paths.add(request.path());
          bodies.add(body.getBytes());
          request.response().setStatusCode(200).putHeader("Content-Type", "application/x-protobuf")
              .end(Buffer.buffer()); // an empty ExportTraceServiceResponse
        }))
        .listen(0, "127.0.0.1"));

    tracing = Tracing.fromEnvironment(Map.of(
        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + collector.actualPort(),
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
        "OTEL_TRACES_SAMPLER", "always_on",
        "OTEL_SERVICE_NAME", "rag-retrieval-under-test",
        "OTEL_BSP_SCHEDULE_DELAY", "50")).install();
    assertThat(tracing.enabled()).isTrue();
    vertx = tracing.applyTo(Vertx.builder()).build();
    stack = await(TestStack.start(vertx, Map.of()));

    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve")
        .putHeader("traceparent", "00-" + TRACE_ID + "-" + CALLER + "-01")
        .sendJsonObject(new JsonObject().put("query", "What carries messages between nodes?")));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("traceparent")).startsWith("00-" + TRACE_ID + "-");
    // protobuf keeps ids as raw bytes and strings as UTF-8: the exports are read for them as they are
    byte[] traceId = HexFormat.of().parseHex(TRACE_ID);
    byte[] caller = HexFormat.of().parseHex(CALLER);
    eventually(() -> received(traceId) && received(caller) && received("POST /v1/retrieve") && received("embed")
        && received("query cache") && received("search") && received("write response") && received("grpc")
        && received("qdrant") && received("rag-retrieval-under-test"));
    assertThat(paths).containsOnly("/v1/traces");
  }

  @Test
  @DisplayName("without an endpoint or exporter in the environment, tracing stays off")
  void offByDefault() {
    collectorVertx = Vertx.vertx();
    assertThat(Tracing.fromEnvironment(Map.of("OTEL_SERVICE_NAME", "x")).enabled()).isFalse();
    assertThat(Tracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
        "OTEL_SDK_DISABLED", "true")).enabled()).isFalse();
    assertThat(Tracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "none")).enabled()).isFalse();
  }

  private boolean received(String text) {
    return received(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private boolean received(byte[] wanted) {
    return bodies.stream().anyMatch(body -> indexOf(body, wanted) >= 0);
  }

  private static int indexOf(byte[] body, byte[] wanted) {
    outer:
    for (int i = 0; i + wanted.length <= body.length; i++) {
      for (int j = 0; j < wanted.length; j++) {
        if (body[i + j] != wanted[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
