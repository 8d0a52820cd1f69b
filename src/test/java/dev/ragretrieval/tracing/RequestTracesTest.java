package dev.ragretrieval.tracing;

import static dev.ragretrieval.testing.Await.await;
import static dev.ragretrieval.testing.Await.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import dev.ragretrieval.app.Application;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.observability.FormatSwitchingEncoder;
import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.testing.TestStack;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Traces of requests: the service with in-process Qdrant and Cohere, spans in memory")
class RequestTracesTest {

  private static final String CALLER = "00f067aa0ba902b7";
  private static final String QUESTION = "How do nodes exchange messages on topics?";
  private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  private static final AtomicInteger TRACES = new AtomicInteger();

  private TraceRecorder recorder;
  private Vertx vertx;
  private TestStack stack;
  private Application embeddedApp;
  private CohereTestServer embeddedCohere;

  @TempDir
  Path dataDir;

  private void start(Map<String, String> settings) {
    recorder = new TraceRecorder();
    vertx = recorder.vertx();
    stack = await(TestStack.start(vertx, settings));
  }

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
    if (embeddedApp != null) {
      await(embeddedApp.shutdown());
      await(embeddedCohere.stop());
    }
    if (vertx != null) {
      await(vertx.close());
    }
    if (recorder != null) {
      recorder.close();
    }
  }

  /** A new trace id per request, so each request's spans are found apart. */
  private static String traceId() {
    return String.format("4bf92f3577b34da6a3ce929d%08x", TRACES.incrementAndGet());
  }

  private static String traceparent(String traceId) {
    return "00-" + traceId + "-" + CALLER + "-01";
  }

  private HttpResponse<Buffer> retrieve(String traceId, JsonObject body) {
    return await(stack.client.post("/v1/retrieve").putHeader("traceparent", traceparent(traceId)).sendJsonObject(body));
  }

  /**
   * Every span of the trace, once the server span ended, its children are exported, and no more
   * come: the span that writes the answer ("write response", "write events") wraps
   * {@code response.end()}, inside which the server span ends, so it ends a moment after the server
   * span (a CI run read the trace in between).
   */
  private List<SpanData> trace(String traceId, String route) {
    SpanData server = recorder.server(traceId, route);
    eventually(() -> recorder.trace(traceId).stream().allMatch(s -> s == server || reaches(recorder.trace(traceId), s, server)));
    int[] seen = {-1};
    eventually(() -> {
      int now = recorder.trace(traceId).size();
      boolean settled = now == seen[0];
      seen[0] = now;
      return settled;
    });
    return recorder.trace(traceId);
  }

  private static boolean reaches(List<SpanData> spans, SpanData span, SpanData ancestor) {
    SpanData at = span;
    while (at != null) {
      if (at.getParentSpanId().equals(ancestor.getSpanId())) {
        return true;
      }
      String parent = at.getParentSpanId();
      at = spans.stream().filter(s -> s.getSpanId().equals(parent)).findFirst().orElse(null);
    }
    return false;
  }

  private static SpanData one(List<SpanData> spans, String name) {
    return TraceRecorder.named(spans, name)
        .orElseThrow(() -> new AssertionError("no span " + name + " in\n" + TraceRecorder.tree(spans)));
  }

  private static SpanData server(List<SpanData> spans) {
    // the HTTP server span; the event bus's receiving side is a SERVER span too
    return spans.stream().filter(s -> s.getKind() == SpanKind.SERVER && s.getAttributes().get(Spans.HTTP_ROUTE) != null)
        .findFirst().orElseThrow();
  }

  /** The caller's trace id is kept, the server span is the caller's child and every other span descends from it. */
  private static void assertTree(List<SpanData> spans, String traceId) {
    SpanData server = server(spans);
    assertThat(server.getTraceId()).isEqualTo(traceId);
    assertThat(server.getParentSpanId()).isEqualTo(CALLER);
    assertThat(spans).allSatisfy(span -> {
      assertThat(span.getTraceId()).isEqualTo(traceId);
      if (span != server) {
        assertThat(reaches(spans, span, server)).as(span.getName() + " under the server span\n" + TraceRecorder.tree(spans))
            .isTrue();
      }
    });
  }

  private static void assertNoQuestionText(List<SpanData> spans, String question) {
    for (SpanData span : spans) {
      assertThat(span.getAttributes().asMap().values()).as(span.getName())
          .noneMatch(value -> String.valueOf(value).contains(question));
      assertThat(span.getName()).doesNotContain(question);
    }
  }

  @Test
  @DisplayName("a JSON question: the caller's trace, server -> validate, cache miss, embed (event bus, Cohere), search (Qdrant gRPC), response; traceparent answered")
  void json() {
    start(Map.of());
    String traceId = traceId();

    HttpResponse<Buffer> response = retrieve(traceId, new JsonObject().put("query", QUESTION).put("top_k", 3));

    assertThat(response.statusCode()).isEqualTo(200);
    List<SpanData> spans = trace(traceId, "/v1/retrieve");
    System.out.println("uncached JSON question:\n" + TraceRecorder.tree(spans));
    assertTree(spans, traceId);
    SpanData server = server(spans);
    assertThat(server.getName()).isEqualTo("POST /v1/retrieve");
    assertThat(response.getHeader("traceparent")).isEqualTo("00-" + traceId + "-" + server.getSpanId() + "-01");
    assertThat(server.getAttributes().get(Spans.HTTP_ROUTE)).isEqualTo("/v1/retrieve");
    assertThat(server.getAttributes().get(STATUS)).isEqualTo(200L);
    assertThat(server.getAttributes().get(METHOD)).isEqualTo("POST");
    assertThat(server.getAttributes().get(Spans.COLLECTION)).isEqualTo(TestStack.COLLECTION);
    assertThat(server.getAttributes().get(Spans.TOP_K)).isEqualTo(3L);
    assertThat(server.getAttributes().get(Spans.SEARCH_MODE)).isNotBlank();
    assertThat(server.getAttributes().get(Spans.RESULT_COUNT))
        .isEqualTo((long) response.bodyAsJsonObject().getJsonArray("results").size()).isPositive();
    assertThat(server.getAttributes().get(Spans.QUERY_ID)).isEqualTo(response.bodyAsJsonObject().getString("query_id"));
    assertThat(server.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

    assertThat(one(spans, "validate").getParentSpanId()).isEqualTo(server.getSpanId());
    assertThat(one(spans, "query cache").getAttributes().get(Spans.CACHE_HIT)).isFalse();
    SpanData embed = one(spans, "embed");
    assertThat(embed.getAttributes().get(Spans.TEXTS)).isEqualTo(1L);
    assertThat(embed.getAttributes().get(Spans.INPUT_TYPE)).isEqualTo("SEARCH_QUERY");
    // the HTTP call to Cohere: Vert.x's client span, under embed
    SpanData cohere = spans.stream().filter(s -> s.getKind() == SpanKind.CLIENT && "POST".equals(s.getAttributes().get(METHOD)))
        .findFirst().orElseThrow(() -> new AssertionError("no Cohere client span\n" + TraceRecorder.tree(spans)));
    assertThat(reaches(spans, cohere, embed)).isTrue();
    assertThat(cohere.getAttributes().get(STATUS)).isEqualTo(200L);

    SpanData search = one(spans, "search");
    assertThat(search.getAttributes().get(Spans.DB_COLLECTION)).isEqualTo(TestStack.COLLECTION);
    assertThat(search.getAttributes().get(Spans.TOP_K)).isEqualTo(3L);
    SpanData grpc = spans.stream().filter(s -> "grpc".equals(s.getAttributes().get(Spans.RPC_SYSTEM))).findFirst()
        .orElseThrow(() -> new AssertionError("no gRPC span\n" + TraceRecorder.tree(spans)));
    assertThat(grpc.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(reaches(spans, grpc, search)).isTrue();
    assertThat(grpc.getAttributes().get(Spans.DB_SYSTEM)).isEqualTo("qdrant");
    assertThat(grpc.getAttributes().get(Spans.DB_COLLECTION)).isEqualTo(TestStack.COLLECTION);
    assertThat(grpc.getAttributes().get(Spans.RPC_SERVICE)).isEqualTo("qdrant.Points");
    assertThat(grpc.getAttributes().get(Spans.RPC_GRPC_STATUS)).isEqualTo(0L);
    assertThat(grpc.getAttributes().get(Spans.SERVER_PORT)).isEqualTo((long) stack.qdrant.port());
    // the traceparent in the call's metadata: the in-process Qdrant's own server span is the call's child
    String path = "/" + grpc.getAttributes().get(Spans.RPC_SERVICE) + "/" + grpc.getAttributes().get(Spans.RPC_METHOD);
    SpanData qdrantServer = spans.stream().filter(s -> s.getKind() == SpanKind.SERVER
        && path.equals(s.getAttributes().get(AttributeKey.stringKey("url.path")))).findFirst().orElseThrow();
    assertThat(qdrantServer.getParentSpanId()).isEqualTo(grpc.getSpanId());
    assertThat(one(spans, "write response").getParentSpanId()).isEqualTo(server.getSpanId());
    assertNoQuestionText(spans, QUESTION);
  }

  @Test
  @DisplayName("the same question again, result cache off: a query-cache hit, no embed span, the same search")
  void cached() {
    // the result cache would answer it with no search at all (see resultCached)
    start(Map.of("RAG_RESULT_CACHE_TTL_MS", "0"));
    String first = traceId();
    String second = traceId();
    JsonObject body = new JsonObject().put("query", QUESTION).put("top_k", 3);

    assertThat(retrieve(first, body).statusCode()).isEqualTo(200);
    trace(first, "/v1/retrieve");
    assertThat(retrieve(second, body).statusCode()).isEqualTo(200);

    List<SpanData> spans = trace(second, "/v1/retrieve");
    System.out.println("cached JSON question:\n" + TraceRecorder.tree(spans));
    assertTree(spans, second);
    assertThat(one(spans, "query cache").getAttributes().get(Spans.CACHE_HIT)).isTrue();
    assertThat(TraceRecorder.named(spans, "embed")).isEmpty();
    assertThat(spans).anyMatch(s -> "grpc".equals(s.getAttributes().get(Spans.RPC_SYSTEM)));
    assertThat(server(spans).getAttributes().get(Spans.RESULT_COUNT)).isPositive();
  }

  @Test
  @DisplayName("the same question a third time within the result cache's TTL: a result-cache hit, no embed, no search")
  void resultCached() {
    start(Map.of());
    String first = traceId();
    String kept = traceId();
    String second = traceId();
    JsonObject body = new JsonObject().put("query", QUESTION).put("top_k", 3);

    assertThat(retrieve(first, body).statusCode()).isEqualTo(200);
    trace(first, "/v1/retrieve");
    // a question is kept from its second asking on
    assertThat(retrieve(kept, body).statusCode()).isEqualTo(200);
    trace(kept, "/v1/retrieve");
    assertThat(retrieve(second, body).statusCode()).isEqualTo(200);

    List<SpanData> spans = trace(second, "/v1/retrieve");
    System.out.println("result-cache hit:\n" + TraceRecorder.tree(spans));
    assertTree(spans, second);
    assertThat(one(spans, "result cache").getAttributes().get(Spans.CACHE_HIT)).isTrue();
    assertThat(TraceRecorder.named(spans, "embed")).isEmpty();
    assertThat(spans).noneMatch(s -> "grpc".equals(s.getAttributes().get(Spans.RPC_SYSTEM)));
    assertThat(server(spans).getAttributes().get(Spans.RESULT_COUNT)).isPositive();
  }

  @Test
  @DisplayName("RAG_TRACE_QUERY_TEXT=true puts the question into rag.query.text, and only then")
  void questionTextOptIn() {
    start(Map.of("RAG_TRACE_QUERY_TEXT", "true"));
    String traceId = traceId();

    assertThat(retrieve(traceId, new JsonObject().put("query", QUESTION)).statusCode()).isEqualTo(200);

    assertThat(server(trace(traceId, "/v1/retrieve")).getAttributes().get(Spans.QUERY_TEXT)).isEqualTo(QUESTION);
  }

  @Test
  @DisplayName("an SSE stream is one server span with an event per stream event, ended after the last")
  void sse() {
    start(Map.of());
    streamed("text/event-stream", body -> body.split("\n\n").length);
  }

  @Test
  @DisplayName("an NDJSON stream is one server span with an event per line sent")
  void ndjson() {
    start(Map.of());
    streamed("application/x-ndjson", body -> (int) body.lines().filter(l -> !l.isBlank()).count());
  }

  private void streamed(String accept, java.util.function.ToIntFunction<String> frames) {
    String traceId = traceId();
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve").putHeader("traceparent", traceparent(traceId))
        .putHeader("Accept", accept).sendJsonObject(new JsonObject().put("query", QUESTION).put("top_k", 4)));

    assertThat(response.statusCode()).isEqualTo(200);
    List<SpanData> spans = trace(traceId, "/v1/retrieve");
    assertTree(spans, traceId);
    SpanData server = server(spans);
    List<String> events = server.getEvents().stream().map(EventData::getName).toList();
    long results = server.getAttributes().get(Spans.RESULT_COUNT);
    assertThat(events).first().isEqualTo("meta");
    assertThat(events).last().isEqualTo("done");
    assertThat(events.stream().filter("chunk"::equals).count()).isEqualTo(results).isPositive();
    assertThat(events).hasSize(frames.applyAsInt(response.bodyAsString()));
    assertThat(server.getEvents()).allSatisfy(e -> assertThat(e.getEpochNanos()).isLessThanOrEqualTo(server.getEndEpochNanos()));
    assertThat(server.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(response.getHeader("traceparent")).contains(traceId);
  }

  @Test
  @DisplayName("a client that leaves a stream ends its span with an error status that says so")
  void streamDisconnect() {
    start(Map.of());
    stack.cohere.delay(Duration.ofMillis(800));
    String traceId = traceId();
    HttpClientAgent client = vertx.createHttpClient();
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
        .setPort(stack.app.httpPort()).setURI("/v1/retrieve")
        .addHeader("traceparent", traceparent(traceId)).addHeader("Accept", "text/event-stream")
        .addHeader("Content-Type", "application/json");

    // the headers arrive with the meta event, while the question is embedded; the client leaves then
    await(client.request(options)
        .compose(request -> request.send(new JsonObject().put("query", QUESTION).toBuffer()))
        .compose(response -> response.request().connection().close()));

    SpanData server = recorder.server(traceId, "/v1/retrieve");
    assertThat(server.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(server.getStatus().getDescription()).isEqualTo(VertxSpans.CLIENT_GONE);
    assertThat(server.getAttributes().get(AttributeKey.booleanKey("rag.client_disconnected"))).isTrue();
    // Vert.x records the closed connection as an "exception" event; of the stream's events only meta went out
    assertThat(server.getEvents()).extracting(EventData::getName).contains("meta").doesNotContain("chunk", "done");
    await(client.close());
  }

  @Test
  @DisplayName("a batch: one embed of every text, one search batch, each query's slot answered")
  void batch() {
    start(Map.of());
    String traceId = traceId();
    JsonObject body = new JsonObject().put("queries", new JsonArray()
        .add(new JsonObject().put("query", QUESTION))
        .add(new JsonObject().put("query", "What does SLAM build?")));

    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve/batch")
        .putHeader("traceparent", traceparent(traceId)).sendJsonObject(body));

    assertThat(response.statusCode()).isEqualTo(200);
    List<SpanData> spans = trace(traceId, "/v1/retrieve/batch");
    assertTree(spans, traceId);
    assertThat(server(spans).getName()).isEqualTo("POST /v1/retrieve/batch");
    assertThat(one(spans, "embed").getAttributes().get(Spans.TEXTS)).isEqualTo(2L);
    SpanData batch = one(spans, "search batch");
    assertThat(batch.getAttributes().get(Spans.BATCH_SIZE)).isEqualTo(2L);
    assertThat(batch.getAttributes().get(Spans.DB_COLLECTION)).isEqualTo(TestStack.COLLECTION);
    assertThat(spans).anyMatch(s -> "grpc".equals(s.getAttributes().get(Spans.RPC_SYSTEM)) && reaches(spans, s, batch));
    assertNoQuestionText(spans, QUESTION);
  }

  @Test
  @DisplayName("the embedded store: the search attempt is a Lucene span (db.system.name=lucene) under search")
  void embedded() throws Exception {
    recorder = new TraceRecorder();
    vertx = recorder.vertx();
    embeddedCohere = await(CohereTestServer.start(vertx, "embedded-key", 32));
    Map<String, String> env = new HashMap<>();
    env.put("RAG_DATA_DIR", dataDir.toString());
    env.put("EMBEDDING_PROVIDER", "cohere");
    env.put("COHERE_API_KEY", "embedded-key");
    env.put("COHERE_BASE_URL", embeddedCohere.baseUrl());
    env.put("COHERE_EMBED_DIMENSION", "32");
    env.put("RAG_HTTP_PORT", "0");
    embeddedApp = await(Application.start(vertx,
        ConfigLoader.fromJson(new JsonObject().put("http", new JsonObject().put("host", "127.0.0.1")), env), null));
    WebClient client = WebClient.create(vertx);
    String traceId = traceId();

    HttpResponse<Buffer> response = await(client.post(embeddedApp.httpPort(), "127.0.0.1", "/v1/retrieve")
        .putHeader("traceparent", traceparent(traceId)).sendJsonObject(new JsonObject().put("query", "What is a node?")));

    assertThat(response.statusCode()).isEqualTo(200);
    List<SpanData> spans = trace(traceId, "/v1/retrieve");
    assertTree(spans, traceId);
    System.out.println("embedded store:\n" + TraceRecorder.tree(spans));
    one(spans, "search");
    assertThat(spans).as(TraceRecorder.tree(spans)).anyMatch(s -> "lucene".equals(s.getAttributes().get(Spans.DB_SYSTEM)));
    assertThat(server(spans).getAttributes().get(Spans.RESULT_COUNT)).isPositive();
    client.close();
  }

  @Test
  @DisplayName("every error code: error.type is the code; 5xx makes the server span an error, 4xx leaves it unset")
  void errors() {
    start(Map.of("RAG_API_KEYS", "client-key"));
    check(r -> r.putHeader("Authorization", "Bearer wrong"), new JsonObject().put("query", QUESTION), "UNAUTHORIZED", 401, null);
    check(null, new JsonObject().put("query", "  "), "EMPTY_QUERY", 400, null);
    check(null, new JsonObject().put("query", QUESTION).put("top_k", 0), "INVALID_TOP_K", 400, null);
    check(null, new JsonObject().put("query", QUESTION).put("score_threshold", 7), "INVALID_THRESHOLD", 400, null);
    check(null, new JsonObject().put("query", "x".repeat(20_000)), "QUERY_TOO_LONG", 400, null);
    check(null, new JsonObject().put("query", QUESTION).put("collection", "no spaces allowed!"), "INVALID_REQUEST", 400, null);
    check(null, new JsonObject().put("query", QUESTION).put("collection", TestStack.EMPTY_COLLECTION),
        "COLLECTION_NOT_FOUND", 404, null);
    check(null, new JsonObject().put("query", "rate limited " + QUESTION), "RATE_LIMIT", 429,
        () -> stack.cohere.failNext(5, 429, "1"));
    check(null, new JsonObject().put("query", "bad json " + QUESTION), "UPSTREAM_ERROR", 502,
        () -> stack.cohere.badJsonNext(5));
    // Cohere answering 503 after every retry: an answer, but a wrong one
    check(null, new JsonObject().put("query", "unavailable " + QUESTION), "UPSTREAM_ERROR", 502,
        () -> stack.cohere.failNext(5, 503, null));
  }

  @Test
  @DisplayName("the server's own failures (413, 415, deadline, gate, Qdrant down): error.type is the code, 5xx an error status")
  void serverFailures() {
    start(Map.of("RAG_BODY_LIMIT_BYTES", "2048", "RAG_MAX_IN_FLIGHT", "1", "RAG_REQUEST_TIMEOUT_MS", "1500"));
    check(r -> r.sendJsonObject(new JsonObject().put("query", QUESTION).put("padding", "x".repeat(5000))),
        "PAYLOAD_TOO_LARGE", 413);
    check(r -> r.putHeader("Content-Type", "text/plain").sendBuffer(Buffer.buffer("query=nodes")),
        "UNSUPPORTED_MEDIA_TYPE", 415);

    // Cohere slower than the deadline: the first request times out, and holds the only slot meanwhile
    stack.cohere.delay(Duration.ofMillis(4000));
    var slow = stack.client.post("/v1/retrieve").putHeader("traceparent", traceparent(traceId()))
        .sendJsonObject(new JsonObject().put("query", "slow " + QUESTION));
    eventually(() -> stack.app.metrics().inFlight().get() == 1);
    check(r -> r.sendJsonObject(new JsonObject().put("query", "turned away " + QUESTION)), "OVERLOADED", 503);
    assertThat(await(slow).statusCode()).isEqualTo(504);
    eventually(() -> stack.app.metrics().inFlight().get() == 0);
    check(r -> r.sendJsonObject(new JsonObject().put("query", "too slow " + QUESTION)), "TIMEOUT", 504);
    stack.cohere.reset();

    await(stack.qdrant.stop());
    check(r -> r.sendJsonObject(new JsonObject().put("query", QUESTION)), "CONNECTION_ERROR", 503);
  }

  /** Sends {@code body} after {@code fault}; the response's code (expected {@code code}, when given) is the span's error.type. */
  private void check(Consumer<HttpRequest<Buffer>> headers, JsonObject body, String code, int status, Runnable fault) {
    if (fault != null) {
      fault.run();
    }
    check(request -> {
      if (headers != null) {
        headers.accept(request);
      } else {
        request.putHeader("Authorization", "Bearer client-key");
      }
      return request.sendJsonObject(body);
    }, code, status);
    stack.cohere.reset();
  }

  /** Sends a request to /v1/retrieve with {@code send}; the response's code (expected {@code code}, when given) is the span's error.type. */
  private void check(Function<HttpRequest<Buffer>, Future<HttpResponse<Buffer>>> send, String code, int status) {
    String traceId = traceId();
    HttpRequest<Buffer> request = stack.client.post("/v1/retrieve").putHeader("traceparent", traceparent(traceId));
    HttpResponse<Buffer> response = await(send.apply(request));
    String body = response.bodyAsString();

    assertThat(response.statusCode()).as(body).isEqualTo(status);
    String answered = response.bodyAsJsonObject().getJsonObject("error").getString("code");
    if (code != null) {
      assertThat(answered).isEqualTo(code);
    }
    SpanData server = recorder.server(traceId, "/v1/retrieve");
    assertThat(server.getParentSpanId()).isEqualTo(CALLER);
    assertThat(server.getAttributes().get(Spans.ERROR_TYPE)).as(answered).isEqualTo(answered);
    assertThat(server.getAttributes().get(STATUS)).isEqualTo((long) status);
    assertThat(server.getStatus().getStatusCode()).as(answered)
        .isEqualTo(status >= 500 ? StatusCode.ERROR : StatusCode.UNSET);
    if (status >= 500) {
      assertThat(server.getStatus().getDescription()).isEqualTo(response.bodyAsJsonObject().getJsonObject("error").getString("message"));
    }
  }

  @Test
  @DisplayName("every JSON log line written inside a request carries the request's trace_id and span_id")
  void logLines() {
    start(Map.of());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Logger root = ((ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    FormatSwitchingEncoder encoder = new FormatSwitchingEncoder();
    encoder.setContext(((ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory()));
    encoder.setFormat("JSON");
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setContext(((ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory()));
    appender.setEncoder(encoder);
    appender.setOutputStream(out);
    appender.start();
    root.addAppender(appender);
    Logger requests = ((ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory()).getLogger("rag.request");
    requests.addAppender(appender); // the request log has its own appender and does not reach the root's
    ch.qos.logback.classic.Level before = requests.getLevel();
    requests.setLevel(ch.qos.logback.classic.Level.INFO);
    try {
      String traceId = traceId();
      // a retried Cohere call logs a warning inside the request; the request line is written after the response
      stack.cohere.failNext(1, 503, null);
      assertThat(retrieve(traceId, new JsonObject().put("query", QUESTION)).statusCode()).isEqualTo(200);
      SpanData server = recorder.server(traceId, "/v1/retrieve");
      eventually(() -> out.toString(StandardCharsets.UTF_8).contains("\"rag.request\""));

      List<JsonObject> lines = out.toString(StandardCharsets.UTF_8).lines().map(JsonObject::new)
          .filter(line -> traceId.equals(line.getString("trace_id"))).toList();
      assertThat(lines).extracting(line -> line.getString("logger_name")).contains("rag.request");
      assertThat(lines).allSatisfy(line -> assertThat(line.getString("span_id")).isNotBlank());
      JsonObject requestLine = lines.stream().filter(l -> "rag.request".equals(l.getString("logger_name"))).findFirst().orElseThrow();
      assertThat(requestLine.getString("span_id")).isEqualTo(server.getSpanId());
      // no line of this request without the trace: every line that names its query id carries the trace id
      String queryId = requestLine.getString("query_id");
      assertThat(out.toString(StandardCharsets.UTF_8).lines().map(JsonObject::new)
          .filter(line -> line.encode().contains(queryId)))
          .allSatisfy(line -> assertThat(line.getString("trace_id")).isEqualTo(traceId));
    } finally {
      requests.setLevel(before);
      requests.detachAppender(appender);
      root.detachAppender(appender);
      appender.stop();
    }
  }
}
