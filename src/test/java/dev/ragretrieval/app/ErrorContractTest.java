package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static dev.ragretrieval.testing.Await.onLoop;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Every error code of docs/API.md section 7, with its status, headers and a safe body")
class ErrorContractTest {

  private TestStack stack;

  private TestStack start(Vertx vertx, Map<String, String> settings) {
    Map<String, String> all = new HashMap<>(settings);
    all.putIfAbsent("RAG_SHUTDOWN_GRACE_MS", "2000");
    stack = await(TestStack.start(vertx, all));
    return stack;
  }

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
  }

  private HttpResponse<Buffer> retrieve(JsonObject body) {
    return await(stack.client.post("/v1/retrieve").sendJsonObject(body));
  }

  /** The contract's error shape, and nothing a client should never see. */
  private static JsonObject assertError(HttpResponse<Buffer> response, int status, String code) {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.getHeader("Content-Type")).startsWith("application/json");
    JsonObject body = response.bodyAsJsonObject();
    assertThat(body.fieldNames()).containsExactly("error");
    JsonObject error = body.getJsonObject("error");
    assertThat(error.fieldNames()).containsExactlyInAnyOrder("code", "message", "details", "query_id");
    assertThat(error.getString("code")).isEqualTo(code);
    assertThat(error.getString("message")).isNotBlank();
    String raw = response.bodyAsString();
    assertThat(raw).doesNotContain("Exception", "dev.ragretrieval", "io.vertx", "\tat ", TestStack.COHERE_KEY);
    return error;
  }

  @Test
  @DisplayName("400 INVALID_REQUEST, EMPTY_QUERY, QUERY_TOO_LONG, INVALID_TOP_K, INVALID_THRESHOLD name the field")
  void validation(Vertx vertx) {
    start(vertx, Map.of());
    JsonObject error = assertError(retrieve(new JsonObject().put("query", "q").put("filter", new JsonObject().put("secret", 1))),
        400, "INVALID_REQUEST");
    assertThat(error.getJsonObject("details").getString("field")).isEqualTo("filter");
    assertThat(error.getString("query_id")).matches("[0-9a-f-]{36}");
    assertError(retrieve(new JsonObject().put("query", "q").put("collection", "nope")), 400, "INVALID_REQUEST");
    assertError(retrieve(new JsonObject().put("query", "  ")), 400, "EMPTY_QUERY");
    assertError(retrieve(new JsonObject().put("query", "a".repeat(1001))), 400, "QUERY_TOO_LONG");
    assertError(retrieve(new JsonObject().put("query", "q").put("top_k", 101)), 400, "INVALID_TOP_K");
    assertError(retrieve(new JsonObject().put("query", "q").put("top_k", 2.5)), 400, "INVALID_TOP_K");
    assertError(retrieve(new JsonObject().put("query", "q").put("score_threshold", 1.1)), 400, "INVALID_THRESHOLD");
  }

  @Test
  @DisplayName("malformed JSON, a JSON array and an empty body are 400 INVALID_REQUEST")
  void malformedJson(Vertx vertx) {
    start(vertx, Map.of());
    for (String body : new String[] {"{\"query\": ", "[1, 2]", ""}) {
      HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve")
          .putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer(body)));
      assertError(response, 400, "INVALID_REQUEST");
    }
  }

  @Test
  @DisplayName("404 NOT_FOUND for an unknown path; 405 with Allow for a known path and the wrong method")
  void notFound(Vertx vertx) {
    start(vertx, Map.of());
    JsonObject error = assertError(await(stack.client.get("/v1/nothing-here").send()), 404, "NOT_FOUND");
    assertThat(error.getValue("query_id")).isNull();
    assertError(await(stack.client.get("/no/such/page.html").send()), 404, "NOT_FOUND");
    HttpResponse<Buffer> wrongMethod = await(stack.client.get("/v1/retrieve").send());
    assertError(wrongMethod, 405, "INVALID_REQUEST");
    assertThat(wrongMethod.getHeader("Allow")).isEqualTo("POST");
    HttpResponse<Buffer> put = await(stack.client.put("/v1/collections").send());
    assertError(put, 405, "INVALID_REQUEST");
    assertThat(put.getHeader("Allow")).isEqualTo("GET, HEAD");
    HttpResponse<Buffer> headOfStream = await(stack.client.head("/v1/retrieve/stream?query=q").send());
    assertThat(headOfStream.statusCode()).isEqualTo(405);
    assertThat(headOfStream.getHeader("Allow")).isEqualTo("GET");
  }

  @Test
  @DisplayName("HEAD on a GET path: the GET's status and headers, no body")
  void head(Vertx vertx) {
    start(vertx, Map.of());
    for (String path : new String[] {"/health/live", "/health/ready", "/v1/collections", "/openapi.yaml"}) {
      HttpResponse<Buffer> get = await(stack.client.get(path).send());
      HttpResponse<Buffer> head = await(stack.client.head(path).send());
      assertThat(head.statusCode()).as(path).isEqualTo(200).isEqualTo(get.statusCode());
      assertThat(head.getHeader("Content-Type")).as(path).isEqualTo(get.getHeader("Content-Type"));
      assertThat(head.body()).as(path).isNull();
      assertThat(get.body().length()).as(path).isPositive();
    }
  }

  @Test
  @DisplayName("404 COLLECTION_NOT_FOUND for an allowed collection the store does not have")
  void collectionNotFound(Vertx vertx) {
    start(vertx, Map.of());
    assertError(retrieve(new JsonObject().put("query", "q").put("collection", TestStack.EMPTY_COLLECTION)),
        404, "COLLECTION_NOT_FOUND");
  }

  @Test
  @DisplayName("413 PAYLOAD_TOO_LARGE for a body over the limit, announced or chunked")
  void payloadTooLarge(Vertx vertx) {
    start(vertx, Map.of("RAG_BODY_LIMIT_BYTES", "2048"));
    JsonObject big = new JsonObject().put("query", "q").put("padding", "x".repeat(5000));
    assertError(retrieve(big), 413, "PAYLOAD_TOO_LARGE");

    HttpClient http = vertx.createHttpClient();
    try {
      Map.Entry<Integer, Buffer> chunked = await(onLoop(vertx, () -> http.request(new RequestOptions()
              .setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(stack.app.httpPort()).setURI("/v1/retrieve"))
          .compose(request -> {
            request.setChunked(true).putHeader("Content-Type", "application/json");
            for (int i = 0; i < 5; i++) {
              request.write("{\"pad\": \"" + "y".repeat(1000) + "\"}");
            }
            request.end();
            return request.response().compose(r -> r.body().map(b -> Map.entry(r.statusCode(), b)));
          })));
      assertThat(chunked.getKey()).isEqualTo(413);
      assertThat(new JsonObject(chunked.getValue()).getJsonObject("error").getString("code")).isEqualTo("PAYLOAD_TOO_LARGE");
    } finally {
      http.close();
    }
  }

  @Test
  @DisplayName("415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON")
  void unsupportedMediaType(Vertx vertx) {
    start(vertx, Map.of());
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve")
        .putHeader("Content-Type", "text/plain").sendBuffer(Buffer.buffer("query=nodes")));
    assertError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    HttpResponse<Buffer> form = await(stack.client.post("/v1/context")
        .putHeader("Content-Type", "application/x-www-form-urlencoded").sendBuffer(Buffer.buffer("query=nodes")));
    assertError(form, 415, "UNSUPPORTED_MEDIA_TYPE");
  }

  @Test
  @DisplayName("415 UNSUPPORTED_MEDIA_TYPE with Accept-Encoding for a compressed body; identity passes")
  void compressedBody(Vertx vertx) throws IOException {
    start(vertx, Map.of());
    ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gzipped)) {
      out.write("{\"query\": \"nodes\"}".getBytes(StandardCharsets.UTF_8));
    }
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve")
        .putHeader("Content-Type", "application/json").putHeader("Content-Encoding", "gzip")
        .sendBuffer(Buffer.buffer(gzipped.toByteArray())));
    assertError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    assertThat(response.getHeader("Accept-Encoding")).isEqualTo("identity");
    assertThat(response.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("Content-Encoding: gzip");

    HttpResponse<Buffer> identity = await(stack.client.post("/v1/retrieve")
        .putHeader("Content-Type", "application/json").putHeader("Content-Encoding", "identity")
        .sendBuffer(Buffer.buffer("{\"query\": \"nodes\"}")));
    assertThat(identity.statusCode()).isEqualTo(200);
  }

  @Test
  @DisplayName("429 RATE_LIMIT with Retry-After when Cohere keeps rate-limiting")
  void rateLimit(Vertx vertx) {
    // a wait of 7 s would outlive the 3 s deadline: the service answers with what Cohere said
    start(vertx, Map.of("RAG_REQUEST_TIMEOUT_MS", "3000"));
    stack.cohere.failNext(10, 429, "7");
    HttpResponse<Buffer> response = retrieve(new JsonObject().put("query", "nodes"));
    assertError(response, 429, "RATE_LIMIT");
    assertThat(response.getHeader("Retry-After")).isEqualTo("7");
  }

  @Test
  @DisplayName("502 UPSTREAM_ERROR when Cohere answers with bad JSON")
  void upstreamError(Vertx vertx) {
    start(vertx, Map.of());
    stack.cohere.badJsonNext(10);
    assertError(retrieve(new JsonObject().put("query", "nodes")), 502, "UPSTREAM_ERROR");
  }

  @Test
  @DisplayName("503 CONNECTION_ERROR when Qdrant is stopped")
  void connectionError(Vertx vertx) {
    start(vertx, Map.of());
    await(stack.qdrant.stop());
    assertError(retrieve(new JsonObject().put("query", "nodes")), 503, "CONNECTION_ERROR");
  }

  @Test
  @DisplayName("503 OVERLOADED with Retry-After beyond max_in_flight")
  void overloaded(Vertx vertx) {
    start(vertx, Map.of("RAG_MAX_IN_FLIGHT", "1"));
    stack.cohere.delay(Duration.ofMillis(3000));
    var slow = stack.client.post("/v1/retrieve").sendJsonObject(new JsonObject().put("query", "nodes"));
    // the slow request holds the only slot while the next arrives
    awaitInFlight(1);
    HttpResponse<Buffer> rejected = retrieve(new JsonObject().put("query", "topics"));
    assertError(rejected, 503, "OVERLOADED");
    assertThat(rejected.getHeader("Retry-After")).isNotBlank();
    assertThat(await(slow).statusCode()).isEqualTo(200);
  }

  @Test
  @DisplayName("504 TIMEOUT when the request deadline passes while an upstream is slow")
  void timeout(Vertx vertx) {
    start(vertx, Map.of("RAG_REQUEST_TIMEOUT_MS", "300"));
    stack.cohere.delay(Duration.ofMillis(2000));
    assertError(retrieve(new JsonObject().put("query", "nodes")), 504, "TIMEOUT");
  }

  @Test
  @DisplayName("401 UNAUTHORIZED with WWW-Authenticate when keys are configured; Bearer and X-API-Key both work")
  void unauthorized(Vertx vertx) {
    start(vertx, Map.of("RAG_API_KEYS", "key-one,key-two"));
    JsonObject body = new JsonObject().put("query", "nodes");
    HttpResponse<Buffer> none = await(stack.client.post("/v1/retrieve").sendJsonObject(body));
    assertThat(assertError(none, 401, "UNAUTHORIZED").getString("message")).contains("required");
    assertThat(none.getHeader("WWW-Authenticate")).startsWith("Bearer");
    HttpResponse<Buffer> wrong = await(stack.client.post("/v1/retrieve").putHeader("X-API-Key", "key-three").sendJsonObject(body));
    assertThat(assertError(wrong, 401, "UNAUTHORIZED").getString("message")).isEqualTo("the API key is not valid");
    assertThat(wrong.bodyAsString()).doesNotContain("key-three", "key-one");

    assertThat(await(stack.client.post("/v1/retrieve").putHeader("Authorization", "Bearer key-one").sendJsonObject(body))
        .statusCode()).isEqualTo(200);
    assertThat(await(stack.client.post("/v1/retrieve").putHeader("X-API-Key", "key-two").sendJsonObject(body))
        .statusCode()).isEqualTo(200);
    assertThat(await(stack.client.get("/v1/facets?key=chapter").putHeader("Authorization", "Bearer key-two").send())
        .statusCode()).isEqualTo(200);
    // operations and the web page stay open
    assertThat(await(stack.client.get("/health/ready").send()).statusCode()).isEqualTo(200);
    assertThat(await(stack.client.get("/health/live").send()).statusCode()).isEqualTo(200);
    assertThat(await(stack.client.get("/").send()).statusCode()).isEqualTo(200);
  }

  @Test
  @DisplayName("CORS preflight allows the API headers and exposes Retry-After")
  void corsPreflight(Vertx vertx) {
    start(vertx, Map.of("RAG_CORS_ORIGINS", "https://book.example.org"));
    HttpResponse<Buffer> preflight = await(stack.client.request(HttpMethod.OPTIONS, "/v1/retrieve")
        .putHeader("Origin", "https://book.example.org")
        .putHeader("Access-Control-Request-Method", "POST")
        .putHeader("Access-Control-Request-Headers", "content-type,x-api-key,authorization")
        .send());
    assertThat(preflight.statusCode()).isBetween(200, 204);
    assertThat(preflight.getHeader("Access-Control-Allow-Origin")).isEqualTo("https://book.example.org");
    assertThat(preflight.getHeader("Access-Control-Allow-Headers").toLowerCase())
        .contains("content-type", "x-api-key", "authorization");
    assertThat(preflight.getHeader("Access-Control-Allow-Methods")).contains("POST");

    HttpResponse<Buffer> actual = await(stack.client.post("/v1/retrieve").putHeader("Origin", "https://book.example.org")
        .sendJsonObject(new JsonObject().put("query", "nodes")));
    assertThat(actual.statusCode()).isEqualTo(200);
    assertThat(actual.getHeader("Access-Control-Allow-Origin")).isEqualTo("https://book.example.org");
    assertThat(actual.getHeader("Access-Control-Expose-Headers")).contains("Retry-After", "X-Request-Id");
  }

  @Test
  @DisplayName("X-Request-Id: the caller's is echoed (errors too); a missing or unsafe one is replaced by a new UUID")
  void requestId(Vertx vertx) {
    start(vertx, Map.of("RAG_API_KEYS", "key-one"));
    JsonObject body = new JsonObject().put("query", "nodes");
    HttpResponse<Buffer> ok = await(stack.client.post("/v1/retrieve").putHeader("Authorization", "Bearer key-one")
        .putHeader("X-Request-Id", "ingress-4f2a9c").sendJsonObject(body));
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.getHeader("X-Request-Id")).isEqualTo("ingress-4f2a9c");

    HttpResponse<Buffer> refused = await(stack.client.post("/v1/retrieve").putHeader("X-Request-Id", "ingress-77")
        .sendJsonObject(body));
    assertError(refused, 401, "UNAUTHORIZED");
    assertThat(refused.getHeader("X-Request-Id")).isEqualTo("ingress-77");

    String fresh = await(stack.client.post("/v1/retrieve").putHeader("Authorization", "Bearer key-one")
        .sendJsonObject(body)).getHeader("X-Request-Id");
    assertThat(UUID.fromString(fresh)).isNotNull();
    for (String unsafe : List.of("has spaces in it", "x".repeat(129), "quote\"s")) {
      String replaced = await(stack.client.post("/v1/retrieve").putHeader("Authorization", "Bearer key-one")
          .putHeader("X-Request-Id", unsafe).sendJsonObject(body)).getHeader("X-Request-Id");
      assertThat(replaced).isNotEqualTo(unsafe);
      assertThat(UUID.fromString(replaced)).isNotNull();
    }
  }

  private void awaitInFlight(int expected) {
    long giveUp = System.currentTimeMillis() + 5000;
    while (stack.app.metrics().inFlight().get() < expected && System.currentTimeMillis() < giveUp) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
