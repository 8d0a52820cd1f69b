package dev.ragretrieval.tracing;

import static dev.ragretrieval.testing.Await.await;
import static dev.ragretrieval.testing.Await.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.TestStack;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Tracing from the standard OTEL_* variables exports over OTLP (http/protobuf) to a collector stand-in")
class OtlpExportTest {

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String CALLER = "b7ad6b7169203331";

  /** What the collector stand-in received: the resource's service.name and each span. */
  private final List<String> services = new CopyOnWriteArrayList<>();
  private final List<Span> received = new CopyOnWriteArrayList<>();
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
          if (request.path().equals("/v1/traces")) {
            record(body);
          }
          request.response().setStatusCode(200).putHeader("Content-Type", "application/x-protobuf")
              .end(Buffer.buffer(ExportTraceServiceResponse.getDefaultInstance().toByteArray()));
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
    eventually(() -> named("POST /v1/retrieve").isPresent() && named("embed").isPresent()
        && named("write response").isPresent() && received.stream().anyMatch(s -> attribute(s, "rpc.system").equals("grpc")));
    Span server = named("POST /v1/retrieve").orElseThrow();
    assertThat(hex(server.getParentSpanId().toByteArray())).isEqualTo(CALLER);
    assertThat(received).filteredOn(s -> hex(s.getTraceId().toByteArray()).equals(TRACE_ID))
        .extracting(Span::getName)
        .contains("POST /v1/retrieve", "validate", "query cache", "embed", "search", "write response");
    assertThat(named("query cache").map(s -> attribute(s, "rag.cache.hit"))).contains("false");
    assertThat(services).contains("rag-retrieval-under-test");
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

  private void record(Buffer body) {
    try {
      ExportTraceServiceRequest export = ExportTraceServiceRequest.parseFrom(body.getBytes());
      export.getResourceSpansList().forEach(resource -> {
        resource.getResource().getAttributesList().stream().filter(a -> a.getKey().equals("service.name"))
            .forEach(a -> services.add(a.getValue().getStringValue()));
        resource.getScopeSpansList().forEach(scope -> received.addAll(scope.getSpansList()));
      });
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private Optional<Span> named(String name) {
    return received.stream().filter(s -> s.getName().equals(name)).findFirst();
  }

  private static String attribute(Span span, String key) {
    return span.getAttributesList().stream().filter(a -> a.getKey().equals(key)).findFirst().map(KeyValue::getValue)
        .map(v -> v.hasBoolValue() ? String.valueOf(v.getBoolValue()) : v.getStringValue()).orElse("");
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
