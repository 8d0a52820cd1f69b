package dev.ragretrieval.observability;

import static net.logstash.logback.argument.StructuredArguments.kv;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import dev.ragretrieval.config.AppConfig.LogFormat;
import dev.ragretrieval.error.ErrorCode;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RequestLogTest {

  private static final String SECRET_QUERY = "what is the launch code of sk-live-123";

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private OutputStreamAppender<ILoggingEvent> appender;

  @AfterEach
  void detach() {
    RequestLog.configure(false);
    if (appender != null) {
      requestLogger().detachAppender(appender);
      appender.stop();
    }
  }

  @Test
  @DisplayName("with the JSON encoder every request field is a real JSON field and the query text is left out by default")
  void jsonFields() {
    capture(LogFormat.JSON);

    RequestLog.log(new RequestLog.Entry("q-1", "req-7f3a", "POST", "/v1/retrieve", 200, null, 41.73, 35.21, 4.14, 5, false, SECRET_QUERY));

    JsonObject line = single();
    assertThat(line.getString("logger_name")).isEqualTo("rag.request");
    assertThat(line.getString("level")).isEqualTo("INFO");
    // each field once: as a field, not also spelled out in the message
    assertThat(line.getString("message")).isEqualTo("request");
    assertThat(line.getString("query_id")).isEqualTo("q-1");
    assertThat(line.getString("request_id")).isEqualTo("req-7f3a");
    assertThat(line.getString("method")).isEqualTo("POST");
    assertThat(line.getString("route")).isEqualTo("/v1/retrieve");
    assertThat(line.getInteger("status")).isEqualTo(200);
    assertThat(line.containsKey("code")).isTrue();
    assertThat(line.getValue("code")).isNull();
    assertThat(line.getDouble("duration_ms")).isEqualTo(41.7);
    assertThat(line.getDouble("embed_ms")).isEqualTo(35.2);
    assertThat(line.getDouble("search_ms")).isEqualTo(4.1);
    assertThat(line.getInteger("result_count")).isEqualTo(5);
    assertThat(line.getBoolean("streamed")).isFalse();
    assertThat(line.containsKey("query")).isFalse();
    assertThat(line.encode()).doesNotContain("launch code").doesNotContain("sk-live-123");
  }

  @Test
  @DisplayName("an error request carries its error code and null timings it never reached")
  void errorFields() {
    capture(LogFormat.JSON);

    RequestLog.log(new RequestLog.Entry(null, "req-8", "POST", "/v1/retrieve", 400, ErrorCode.EMPTY_QUERY, 0.4, null, null, null, true, "  "));

    JsonObject line = single();
    assertThat(line.getString("code")).isEqualTo("EMPTY_QUERY");
    assertThat(line.getInteger("status")).isEqualTo(400);
    assertThat(line.getValue("embed_ms")).isNull();
    assertThat(line.getValue("result_count")).isNull();
    assertThat(line.getBoolean("streamed")).isTrue();
  }

  @Test
  @DisplayName("the query text is logged only when log_query_text is on, on one line")
  void queryTextOptIn() {
    capture(LogFormat.JSON);
    RequestLog.configure(true);

    RequestLog.log(new RequestLog.Entry("q-2", "req-9", "GET", "/v1/retrieve/stream", 200, null, 3, 1.0, 1.0, 0, true, "nodes\nFAKE LINE"));

    JsonObject line = single();
    assertThat(line.getString("query")).isEqualTo("nodes FAKE LINE");
  }

  @Test
  @DisplayName("with the plain encoder a request is one readable key=value line")
  void plainLine() {
    capture(LogFormat.PLAIN);

    RequestLog.log(new RequestLog.Entry("q-3", "req-10", "POST", "/v1/context", 504, ErrorCode.TIMEOUT, 15000.04, 14990.0, null, null, false, SECRET_QUERY));

    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text.lines()).hasSize(1);
    assertThat(text).contains("INFO", "rag.request", "query_id=q-3", "request_id=req-10", "method=POST", "route=/v1/context", "status=504",
        "code=TIMEOUT", "duration_ms=15000.0", "embed_ms=14990.0", "streamed=false");
    assertThat(text).contains("rag.request - request query_id=q-3 request_id=req-10 method=POST route=/v1/context status=504 code=TIMEOUT");
    assertThat(text).doesNotContain("launch code").doesNotStartWith("{");
  }

  @Test
  @DisplayName("on a plain line a structured field the message places itself is not repeated after it")
  void plainLinePlacedField() {
    capture(LogFormat.PLAIN);

    RequestLog.LOG.info("placed {} then", kv("first", 1), kv("second", "two"));

    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("- placed first=1 then second=two");
    assertThat(text.split("first=", -1)).hasSize(2);
  }

  private void capture(LogFormat format) {
    LoggerContext context = Logging.context();
    FormatSwitchingEncoder encoder = new FormatSwitchingEncoder();
    encoder.setContext(context);
    encoder.setFormat(format.name());
    encoder.start();
    appender = new OutputStreamAppender<>();
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setOutputStream(out);
    appender.start();
    requestLogger().addAppender(appender);
  }

  private JsonObject single() {
    List<String> lines = Arrays.asList(out.toString(StandardCharsets.UTF_8).split("\n"));
    assertThat(lines).hasSize(1);
    return new JsonObject(lines.get(0));
  }

  private static Logger requestLogger() {
    return Logging.context().getLogger("rag.request");
  }
}
