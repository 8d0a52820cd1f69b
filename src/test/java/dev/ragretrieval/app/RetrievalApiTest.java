package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.app.Http.Event;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Retrieval API end to end: Application + in-process Qdrant and Cohere")
class RetrievalApiTest {

  private TestStack stack;

  @BeforeEach
  void start(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "2000")));
  }

  @AfterEach
  void stop() {
    await(stack.close());
  }

  private HttpResponse<Buffer> post(String path, JsonObject body) {
    return await(stack.client.post(path).sendJsonObject(body));
  }

  private HttpResponse<Buffer> post(String path, String accept, JsonObject body) {
    return await(stack.client.post(path).putHeader("Accept", accept).sendJsonObject(body));
  }

  @Test
  @DisplayName("results equal Qdrant's brute-force top-k: same points, same order, same scores")
  void matchesBruteForce() {
    String query = "How do nodes exchange messages on topics?";
    HttpResponse<Buffer> response = post("/v1/retrieve", new JsonObject().put("query", query).put("top_k", 5).put("score_threshold", 0.05));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("application/json");
    JsonObject body = response.bodyAsJsonObject();

    List<Map.Entry<Integer, Double>> expected = TestStack.bruteForce(query, 5, 0.05);
    assertThat(expected).hasSize(5);
    JsonArray results = body.getJsonArray("results");
    assertThat(results).hasSize(5);
    for (int r = 0; r < expected.size(); r++) {
      JsonObject result = results.getJsonObject(r);
      int chunk = expected.get(r).getKey();
      assertThat(result.getInteger("rank")).isEqualTo(r + 1);
      assertThat(result.getString("id")).isEqualTo(stack.ids.get(chunk));
      assertThat(result.getDouble("score")).isCloseTo(expected.get(r).getValue(), within(1e-5));
      assertThat(result.getString("text")).isEqualTo(TestStack.CHUNKS[chunk][2]);
      assertThat(result.getString("chunk_id")).isEqualTo(TestStack.CHUNKS[chunk][0] + "#" + chunk);
      assertThat(result.getString("source_url")).isEqualTo(TestStack.url(chunk));
      assertThat(result.getString("chapter")).isEqualTo(TestStack.CHUNKS[chunk][0]);
      assertThat(result.getString("section")).isEqualTo(TestStack.CHUNKS[chunk][1]);
      assertThat(result.getString("page_title")).isEqualTo(TestStack.CHUNKS[chunk][1]);
      assertThat(result.getInteger("chunk_index")).isEqualTo(chunk);
      assertThat(result.getJsonObject("metadata")).isEqualTo(TestStack.payload(chunk));
    }
    assertThat(body.getString("query_id")).matches("[0-9a-f-]{36}");
    assertThat(body.getString("query")).isEqualTo(query);
    assertThat(body.getString("collection")).isEqualTo(TestStack.COLLECTION);
    assertThat(body.getString("embedding_model")).isEqualTo("embed-english-v3.0");
    assertThat(body.getString("status")).isEqualTo("success");
    assertThat(body.getInteger("count")).isEqualTo(5);
    // the stack's collection has no BM25 index: the default (hybrid) falls back to dense and says so
    assertThat(body.getJsonObject("search_params").copy().put("fallback", "...")).isEqualTo(new JsonObject()
        .put("top_k", 5).put("score_threshold", 0.05).put("filter", new JsonObject())
        .put("search_mode", "dense").put("ranking", "cosine").put("fallback", "..."));
    assertThat(body.getDouble("execution_time_ms")).isNotNegative();
    assertThat(body.getJsonObject("timings_ms").fieldNames()).containsExactlyInAnyOrder("embed", "search");
  }

  @Test
  @DisplayName("text/k/similarity_threshold/filters aliases give the same answer as the canonical names")
  void aliases() {
    JsonObject filter = new JsonObject().put("chapter", "module-1-ros2").put("section", new JsonArray().add("Nodes").add("Topics"));
    JsonObject canonical = post("/v1/retrieve", new JsonObject().put("query", "nodes topics messages")
        .put("top_k", 3).put("score_threshold", 0.01).put("filter", filter)).bodyAsJsonObject();
    for (String queryKey : List.of("text", "query_text")) {
      JsonObject aliased = post("/v1/retrieve", new JsonObject().put(queryKey, "nodes topics messages")
          .put("k", 3).put("similarity_threshold", 0.01).put("filters", filter)).bodyAsJsonObject();
      assertThat(aliased.getJsonArray("results")).isEqualTo(canonical.getJsonArray("results"));
      assertThat(aliased.getJsonObject("search_params")).isEqualTo(canonical.getJsonObject("search_params"));
    }
    assertThat(canonical.getJsonArray("results")).isNotEmpty();
    canonical.getJsonArray("results").forEach(r -> {
      JsonObject result = (JsonObject) r;
      assertThat(result.getString("chapter")).isEqualTo("module-1-ros2");
      assertThat(result.getString("section")).isIn("Nodes", "Topics");
    });
  }

  @Test
  @DisplayName("a JSON body with a charset parameter is accepted as JSON")
  void jsonWithCharset() {
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve")
        .putHeader("Content-Type", "application/json; charset=utf-8")
        .sendBuffer(Buffer.buffer("{\"query\": \"ROS 2 node\", \"top_k\": 1}")));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.bodyAsJsonObject().getInteger("count")).isEqualTo(1);
  }

  @Test
  @DisplayName("fewer hits than top_k is partial, none is no_results")
  void statuses() {
    JsonObject partial = post("/v1/retrieve", new JsonObject().put("query", "Gazebo simulates physics")
        .put("top_k", 5).put("filter", new JsonObject().put("chapter", "module-2-simulation"))).bodyAsJsonObject();
    assertThat(partial.getInteger("count")).isBetween(1, 4);
    assertThat(partial.getString("status")).isEqualTo("partial");

    JsonObject none = post("/v1/retrieve", new JsonObject().put("query", "zebra quantum banana")
        .put("score_threshold", 0.99)).bodyAsJsonObject();
    assertThat(none.getInteger("count")).isZero();
    assertThat(none.getString("status")).isEqualTo("no_results");
    assertThat(none.getJsonArray("results")).isEmpty();
  }

  @Test
  @DisplayName("SSE: meta, one chunk per result in rank order, context, done; with the stream headers")
  void sseOrder() {
    JsonObject request = new JsonObject().put("query", "What is a ROS 2 node?").put("top_k", 3).put("include_context", true);
    HttpResponse<Buffer> response = post("/v1/retrieve", "text/event-stream", request);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).isEqualTo("text/event-stream");
    assertThat(response.getHeader("Cache-Control")).isEqualTo("no-cache");
    assertThat(response.getHeader("X-Accel-Buffering")).isEqualTo("no");

    List<Event> events = Http.sse(response.bodyAsString());
    assertThat(events).extracting(Event::name).containsExactly("meta", "chunk", "chunk", "chunk", "context", "done");
    JsonObject meta = events.get(0).data();
    assertThat(meta.fieldNames()).contains("query_id", "query", "collection", "search_params");
    JsonObject json = post("/v1/retrieve", request).bodyAsJsonObject();
    for (int i = 0; i < 3; i++) {
      JsonObject chunk = events.get(1 + i).data();
      assertThat(chunk.getInteger("rank")).isEqualTo(i + 1);
      assertThat(chunk.getString("id")).isEqualTo(json.getJsonArray("results").getJsonObject(i).getString("id"));
    }
    assertThat(events.get(4).data().getString("formatted_text")).startsWith("[Result 1] Score: ");
    assertThat(events.get(4).data().getString("query_id")).isEqualTo(meta.getString("query_id"));
    JsonObject done = events.get(5).data();
    assertThat(done.getInteger("count")).isEqualTo(3);
    assertThat(done.getString("status")).isEqualTo("success");
    assertThat(done.fieldNames()).contains("execution_time_ms", "timings_ms");
  }

  @Test
  @DisplayName("NDJSON carries the same sequence as {event, data} lines; no context event unless asked")
  void ndjsonOrder() {
    HttpResponse<Buffer> response = post("/v1/retrieve", "application/x-ndjson",
        new JsonObject().put("query", "publisher topic messages").put("top_k", 2));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).isEqualTo("application/x-ndjson");
    List<JsonObject> lines = Http.ndjson(response.bodyAsString());
    assertThat(lines).extracting(l -> l.getString("event")).containsExactly("meta", "chunk", "chunk", "done");
    assertThat(lines.get(1).getJsonObject("data").getInteger("rank")).isEqualTo(1);
    assertThat(lines.get(3).getJsonObject("data").getInteger("count")).isEqualTo(2);
  }

  @Test
  @DisplayName("a search failure after meta becomes an error event that ends the stream")
  void errorEventAfterMeta() {
    stack.qdrant.failNext(10, GrpcStatus.INTERNAL, null);
    HttpResponse<Buffer> response = post("/v1/retrieve", "text/event-stream", new JsonObject().put("query", "nodes"));
    assertThat(response.statusCode()).isEqualTo(200);
    List<Event> events = Http.sse(response.bodyAsString());
    assertThat(events).extracting(Event::name).containsExactly("meta", "error");
    JsonObject error = events.get(1).data();
    assertThat(error.getString("code")).isEqualTo("UPSTREAM_ERROR");
    assertThat(error.getString("query_id")).isEqualTo(events.get(0).data().getString("query_id"));
    assertThat(error.fieldNames()).contains("message", "details");
  }

  @Test
  @DisplayName("a stream's meta goes out at once while the question is embedded; a cached question's whole stream is one write, with a Content-Length")
  void streamWrites() throws IOException {
    byte[] request = RawHttp.postJson("/v1/retrieve", new JsonObject().put("query", "What is a ROS 2 node?")
        .put("top_k", 3).put("include_context", true).toBuffer().getBytes(), "Accept: text/event-stream");
    RawHttp.Response fresh = RawHttp.send(stack.app.httpPort(), request);
    RawHttp.Response cached = RawHttp.send(stack.app.httpPort(), request);
    assertThat(stack.cohere.callCount()).as("the second stream's vector came from the cache").isEqualTo(1);
    for (RawHttp.Response response : List.of(fresh, cached)) {
      assertThat(Http.sse(response.body())).extracting(Event::name)
          .containsExactly("meta", "chunk", "chunk", "chunk", "context", "done");
    }
    // each write of the server is one HTTP chunk
    assertThat(fresh.header("Transfer-Encoding")).isEqualTo("chunked");
    assertThat(fresh.chunks()).as("meta, then the rest with the end").isEqualTo(2);
    // all of it in the first write, which also ends it: an ordinary body, as a JSON answer is
    assertThat(cached.header("Transfer-Encoding")).isNull();
    assertThat(cached.header("Content-Length")).isEqualTo(String.valueOf(cached.body().getBytes(StandardCharsets.UTF_8).length));
    assertThat(cached.header("Content-Type")).isEqualTo("text/event-stream");
  }

  @Test
  @DisplayName("a cached question whose search fails still streams meta, then the error event")
  void cachedQuestionErrorKeepsMetaFirst() {
    JsonObject query = new JsonObject().put("query", "nodes");
    // another top_k: the vector is cached, the answer is not (the result cache would skip the search)
    assertThat(post("/v1/retrieve", query.copy().put("top_k", 3)).statusCode()).isEqualTo(200);
    for (String accept : List.of("text/event-stream", "application/x-ndjson")) {
      stack.qdrant.failNext(10, GrpcStatus.INTERNAL, null);
      HttpResponse<Buffer> response = post("/v1/retrieve", accept, query);
      assertThat(response.statusCode()).isEqualTo(200);
      List<String> names = accept.equals("text/event-stream")
          ? Http.sse(response.bodyAsString()).stream().map(Event::name).toList()
          : Http.ndjson(response.bodyAsString()).stream().map(line -> line.getString("event")).toList();
      assertThat(names).as(accept).containsExactly("meta", "error");
    }
    assertThat(stack.cohere.callCount()).isEqualTo(1);
  }

  @Test
  @DisplayName("a validation error on a stream request is an ordinary HTTP error, not a stream")
  void streamValidationError() {
    HttpResponse<Buffer> response = post("/v1/retrieve", "text/event-stream", new JsonObject().put("query", " "));
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Http.error(response).getString("code")).isEqualTo("EMPTY_QUERY");
  }

  @Test
  @DisplayName("GET /v1/retrieve/stream serves the same SSE stream from query parameters")
  void getStream() {
    String filter = URLEncoder.encode("{\"chapter\":\"module-1-ros2\"}", StandardCharsets.UTF_8);
    HttpResponse<Buffer> response = await(stack.client
        .get("/v1/retrieve/stream?query=" + URLEncoder.encode("ROS 2 node", StandardCharsets.UTF_8)
            + "&top_k=2&score_threshold=0.01&collection=textbook_chunks&filter=" + filter + "&context=true")
        .send());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).isEqualTo("text/event-stream");
    List<Event> events = Http.sse(response.bodyAsString());
    assertThat(events).extracting(Event::name).containsExactly("meta", "chunk", "chunk", "context", "done");
    assertThat(events.get(0).data().getJsonObject("search_params").copy().put("fallback", "...")).isEqualTo(new JsonObject()
        .put("top_k", 2).put("score_threshold", 0.01).put("filter", new JsonObject().put("chapter", "module-1-ros2"))
        .put("search_mode", "dense").put("ranking", "cosine").put("fallback", "..."));
    assertThat(events.get(1).data().getString("chapter")).isEqualTo("module-1-ros2");
  }

  @Test
  @DisplayName("POST /v1/context returns the formatted blocks, unique sources and the results used")
  void context() {
    HttpResponse<Buffer> response = post("/v1/context", new JsonObject().put("query", "ROS 2 node computation").put("top_k", 3));
    assertThat(response.statusCode()).isEqualTo(200);
    JsonObject body = response.bodyAsJsonObject();
    JsonArray results = body.getJsonArray("results");
    assertThat(body.getInteger("chunk_count")).isEqualTo(3).isEqualTo(results.size());
    String text = body.getString("formatted_text");
    assertThat(body.getInteger("total_chars")).isEqualTo(text.length());
    JsonObject first = results.getJsonObject(0);
    assertThat(text).startsWith(String.format(java.util.Locale.ROOT, "[Result 1] Score: %.2f\nSource: %s\nChapter: %s | Section: %s\n---\n%s\n\n[Result 2]",
        first.getDouble("score"), first.getString("source_url"), first.getString("chapter"), first.getString("section"),
        first.getString("text")));
    assertThat(body.getJsonArray("sources").getList()).doesNotHaveDuplicates()
        .first().isEqualTo(first.getString("source_url"));
    assertThat(body.getString("query_id")).matches("[0-9a-f-]{36}");

    JsonObject small = post("/v1/context", new JsonObject().put("query", "ROS 2 node computation").put("top_k", 3)
        .put("max_context_chars", text.indexOf("\n\n[Result 2]"))).bodyAsJsonObject();
    assertThat(small.getInteger("chunk_count")).isEqualTo(1);
    assertThat(small.getInteger("total_chars")).isLessThanOrEqualTo(text.indexOf("\n\n[Result 2]"));
  }

  @Test
  @DisplayName("a batch embeds every query in one call; one bad query fails only its own slot")
  void batch() {
    int callsBefore = stack.cohere.callCount();
    JsonObject request = new JsonObject().put("queries", new JsonArray()
        .add(new JsonObject().put("query", "ROS 2 node").put("top_k", 2))
        .add(new JsonObject().put("query", ""))
        .add(new JsonObject().put("text", "Gazebo physics simulation").put("k", 1))
        .add(new JsonObject().put("query", "lidar sensors").put("top_k", 1000)));
    HttpResponse<Buffer> response = post("/v1/retrieve/batch", request);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(stack.cohere.callCount() - callsBefore).isEqualTo(1);
    JsonArray results = response.bodyAsJsonObject().getJsonArray("results");
    assertThat(results).hasSize(4);
    assertThat(results.getJsonObject(0).getInteger("count")).isEqualTo(2);
    assertThat(results.getJsonObject(1).getJsonObject("error").getString("code")).isEqualTo("EMPTY_QUERY");
    assertThat(results.getJsonObject(2).getJsonArray("results").getJsonObject(0).getString("section")).isEqualTo("Gazebo");
    assertThat(results.getJsonObject(3).getJsonObject("error").getString("code")).isEqualTo("INVALID_TOP_K");
    assertThat(response.bodyAsJsonObject().getDouble("execution_time_ms")).isNotNegative();

    JsonObject single = post("/v1/retrieve", new JsonObject().put("query", "ROS 2 node").put("top_k", 2)).bodyAsJsonObject();
    assertThat(results.getJsonObject(0).getJsonArray("results")).isEqualTo(single.getJsonArray("results"));
  }

  @Test
  @DisplayName("a batch as NDJSON: one result or error line per query with its index, then done")
  void batchNdjson() {
    JsonObject request = new JsonObject().put("queries", new JsonArray()
        .add(new JsonObject().put("query", "SLAM map"))
        .add(new JsonObject().put("query", "x").put("score_threshold", 3)));
    HttpResponse<Buffer> response = post("/v1/retrieve/batch", "application/x-ndjson", request);
    assertThat(response.getHeader("Content-Type")).isEqualTo("application/x-ndjson");
    List<JsonObject> lines = Http.ndjson(response.bodyAsString());
    assertThat(lines).hasSize(3);
    assertThat(lines.subList(0, 2)).extracting(l -> l.getString("event") + ":" + l.getInteger("index"))
        .containsExactlyInAnyOrder("result:0", "error:1");
    JsonObject error = lines.stream().filter(l -> l.getString("event").equals("error")).findFirst().orElseThrow();
    assertThat(error.getJsonObject("data").getString("code")).isEqualTo("INVALID_THRESHOLD");
    assertThat(lines.get(2).getString("event")).isEqualTo("done");
  }

  @Test
  @DisplayName("facets list a filterable key's values by count; other keys are INVALID_REQUEST")
  void facets() {
    HttpResponse<Buffer> response = await(stack.client.get("/v1/facets?key=chapter").send());
    assertThat(response.statusCode()).isEqualTo(200);
    JsonObject body = response.bodyAsJsonObject();
    assertThat(body.getString("key")).isEqualTo("chapter");
    JsonArray values = body.getJsonArray("values");
    assertThat(values.getJsonObject(0)).isEqualTo(new JsonObject().put("value", "module-1-ros2").put("count", 9));
    assertThat(values).hasSize(5);

    HttpResponse<Buffer> bad = await(stack.client.get("/v1/facets?key=text").send());
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(Http.error(bad).getString("code")).isEqualTo("INVALID_REQUEST");
  }

  @Test
  @DisplayName("health, readiness, the web page and the OpenAPI document are served")
  void operations() {
    HttpResponse<Buffer> live = await(stack.client.get("/health/live").send());
    assertThat(live.statusCode()).isEqualTo(200);
    HttpResponse<Buffer> ready = await(stack.client.get("/health/ready").send());
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.bodyAsJsonObject().getString("status")).isEqualTo("UP");
    assertThat(ready.bodyAsJsonObject().getJsonArray("checks")).isNotEmpty();
    HttpResponse<Buffer> page = await(stack.client.get("/").send());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.getHeader("Content-Type")).startsWith("text/html");
    HttpResponse<Buffer> openapi = await(stack.client.get("/openapi.yaml").send());
    if (getClass().getClassLoader().getResource("openapi.yaml") != null) {
      assertThat(openapi.statusCode()).isEqualTo(200);
      assertThat(openapi.getHeader("Content-Type")).isEqualTo("application/yaml");
      assertThat(openapi.bodyAsString()).contains("openapi:");
    } else {
      assertThat(openapi.statusCode()).isEqualTo(404);
    }
  }
}
