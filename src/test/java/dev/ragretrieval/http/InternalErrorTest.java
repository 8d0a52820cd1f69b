package dev.ragretrieval.http;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.tracing.Spans;
import dev.ragretrieval.tracing.TraceRecorder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

@ExtendWith(VertxExtension.class)
class InternalErrorTest {

  @Test
  @DisplayName("a bug of ours answers 500 INTERNAL without class names, logged once at ERROR with the request id and stack trace")
  void bugAnswersInternal(Vertx vertx) {
    RagMetrics metrics = RagMetrics.detached();
    Router router = Router.router(vertx);
    router.get("/boom").handler(ctx -> {
      Exchange exchange = Exchange.of(ctx, metrics).requestId("req-42");
      // a bug deep in an adapter, mapped by the seam as every unmapped failure is
      exchange.fail(ServiceException.from(new NullPointerException("field x of Foo is null")));
    });
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(captured);
    HttpServer server = await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1"));
    try {
      HttpResponse<Buffer> response = await(WebClient.create(vertx).get(server.actualPort(), "127.0.0.1", "/boom").send());

      assertThat(response.statusCode()).isEqualTo(500);
      assertThat(response.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("INTERNAL");
      assertThat(response.bodyAsString()).doesNotContain("NullPointer").doesNotContain("Foo");
      assertThat(captured.list).filteredOn(e -> e.getLevel() == Level.ERROR).singleElement().satisfies(e -> {
        assertThat(e.getFormattedMessage()).contains("req-42");
        assertThat(e.getThrowableProxy().getClassName()).isEqualTo(NullPointerException.class.getName());
      });
    } finally {
      root.detachAppender(captured);
      await(server.close());
    }
  }

  @Test
  @DisplayName("with tracing on, a bug of ours makes the server span an error: error.type INTERNAL, the answer's message, no class names")
  void bugIsTracedAsError() {
    String traceId = "4bf92f3577b34da6a3ce929d0000beef";
    try (TraceRecorder recorder = new TraceRecorder()) {
      Vertx vertx = recorder.vertx();
      RagMetrics metrics = RagMetrics.detached();
      Router router = Router.router(vertx);
      router.route().handler(TraceHandler.create());
      router.get("/boom").handler(ctx -> Exchange.of(ctx, metrics).requestId("req-43")
          .fail(ServiceException.from(new IllegalStateException("state of Bar broke"))));
      HttpServer server = await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1"));
      try {
        HttpResponse<Buffer> response = await(WebClient.create(vertx).get(server.actualPort(), "127.0.0.1", "/boom")
            .putHeader("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01").send());

        assertThat(response.statusCode()).isEqualTo(500);
        SpanData span = recorder.await(s -> s.getTraceId().equals(traceId) && s.getKind() == SpanKind.SERVER);
        assertThat(response.getHeader("traceparent")).isEqualTo("00-" + traceId + "-" + span.getSpanId() + "-01");
        assertThat(span.getAttributes().get(Spans.ERROR_TYPE)).isEqualTo("INTERNAL");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getStatus().getDescription())
            .isEqualTo(response.bodyAsJsonObject().getJsonObject("error").getString("message"))
            .doesNotContain("IllegalState").doesNotContain("Bar");
      } finally {
        await(server.close());
        await(vertx.close());
      }
    }
  }
}
