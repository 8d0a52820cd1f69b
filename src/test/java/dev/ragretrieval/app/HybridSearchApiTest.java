package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.app.Http.Event;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.testing.TestStack;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
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
@DisplayName("search_mode over HTTP: hybrid by default where the collection has BM25, dense fallback said in search_params")
class HybridSearchApiTest {

  static final String HYBRID = "hybrid_chunks";

  private TestStack stack;

  @BeforeEach
  void start(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("QDRANT_COLLECTIONS", TestStack.EMPTY_COLLECTION + "," + HYBRID)));
    seedHybrid(stack);
  }

  @AfterEach
  void stop() {
    await(stack.close());
  }

  /** The stack's chunks again, in a collection with the bm25 sparse vector, as ingest now writes them. */
  static void seedHybrid(TestStack stack) {
    stack.qdrant.createHybridCollection(HYBRID, TestStack.DIM, "bm25");
    for (int i = 0; i < TestStack.CHUNKS.length; i++) {
      JsonObject payload = TestStack.payload(i);
      stack.qdrant.upsert(HYBRID, stack.ids.get(i), dev.ragretrieval.testing.CohereTestServer.vectorFor(TestStack.CHUNKS[i][2], TestStack.DIM),
          payload, "bm25", KeywordText.of(payload));
    }
  }

  private JsonObject retrieve(JsonObject body) {
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve").sendJsonObject(body));
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  private QueryPoints lastQuery() {
    List<QueryPoints> queries = stack.qdrant.queries();
    return queries.get(queries.size() - 1);
  }

  @Test
  @DisplayName("on a collection with BM25 the default is hybrid: prefetch + RRF sent, search_params says hybrid / rrf, scores are cosines")
  void hybridByDefault() {
    String query = "How do nodes exchange messages on topics?";
    JsonObject body = retrieve(new JsonObject().put("query", query).put("collection", HYBRID).put("score_threshold", 0.05));

    JsonObject params = body.getJsonObject("search_params");
    assertThat(params.getString("search_mode")).isEqualTo("hybrid");
    assertThat(params.getString("ranking")).isEqualTo("rrf");
    assertThat(params.containsKey("fallback")).isFalse();
    dev.ragretrieval.search.Fusion fusion = dev.ragretrieval.search.Fusion.DEFAULT;
    assertThat(params.getJsonObject("fusion")).isEqualTo(new JsonObject().put("method", "rrf").put("k", fusion.rrfK())
        .put("dense_weight", fusion.denseWeight()).put("keyword_weight", fusion.keywordWeight())
        .put("candidates", fusion.candidatesFor(5)));
    // a hybrid search's fused query, then its dense list for the cosines
    List<QueryPoints> queries = stack.qdrant.queries();
    QueryPoints fused = queries.get(queries.size() - 2);
    assertThat(fused.getPrefetchCount()).isEqualTo(2);
    assertThat(fused.getQuery().getRrf().getK()).isEqualTo(fusion.qdrantK());
    assertThat(lastQuery().getQuery().getNearest().hasDense()).isTrue();
    Map<Integer, Double> cosines = new java.util.HashMap<>();
    TestStack.bruteForce(query, TestStack.CHUNKS.length, -1).forEach(e -> cosines.put(e.getKey(), e.getValue()));
    JsonArray results = body.getJsonArray("results");
    assertThat(results).isNotEmpty();
    for (int r = 0; r < results.size(); r++) {
      JsonObject result = results.getJsonObject(r);
      int chunk = result.getInteger("chunk_index");
      assertThat(result.getDouble("score")).isCloseTo(cosines.get(chunk), within(1e-5));
      assertThat(result.getDouble("score")).isGreaterThanOrEqualTo(0.05);
      assertThat(result.containsKey("relevance_score")).isFalse();
    }
  }

  @Test
  @DisplayName("search_mode dense on a hybrid collection searches dense: the brute-force cosine order")
  void denseWhenAsked() {
    String query = "How do nodes exchange messages on topics?";
    JsonObject body = retrieve(new JsonObject().put("query", query).put("collection", HYBRID).put("search_mode", "dense"));

    assertThat(body.getJsonObject("search_params").getString("search_mode")).isEqualTo("dense");
    assertThat(body.getJsonObject("search_params").getString("ranking")).isEqualTo("cosine");
    assertThat(body.getJsonObject("search_params").containsKey("fusion")).isFalse();
    assertThat(lastQuery().getPrefetchCount()).isZero();
    List<Integer> expected = TestStack.bruteForce(query, 5, 0.1).stream().map(Map.Entry::getKey).toList();
    assertThat(body.getJsonArray("results").stream().map(r -> ((JsonObject) r).getInteger("chunk_index")).toList())
        .isEqualTo(expected);
  }

  @Test
  @DisplayName("hybrid asked of a collection without the sparse vector falls back to dense and search_params says why")
  void fallbackReported() {
    JsonObject body = retrieve(new JsonObject().put("query", "ROS 2 node").put("search_mode", "hybrid"));

    JsonObject params = body.getJsonObject("search_params");
    assertThat(params.getString("search_mode")).isEqualTo("dense");
    assertThat(params.getString("fallback")).contains(TestStack.COLLECTION).contains("BM25");
    assertThat(lastQuery().getPrefetchCount()).isZero();
  }

  @Test
  @DisplayName("a search_mode other than dense or hybrid is 400 INVALID_REQUEST naming the field, in JSON and in the GET stream")
  void badMode() {
    HttpResponse<Buffer> post = await(stack.client.post("/v1/retrieve")
        .sendJsonObject(new JsonObject().put("query", "nodes").put("search_mode", "sparse")));
    HttpResponse<Buffer> get = await(stack.client.get("/v1/retrieve/stream?query=nodes&search_mode=bm25").send());

    for (HttpResponse<Buffer> response : List.of(post, get)) {
      assertThat(response.statusCode()).isEqualTo(400);
      JsonObject error = Http.error(response);
      assertThat(error.getString("code")).isEqualTo("INVALID_REQUEST");
      assertThat(error.getJsonObject("details").getString("field")).isEqualTo("search_mode");
    }
  }

  @Test
  @DisplayName("the stream's meta event and NDJSON carry the mode actually used")
  void streamsEchoMode() {
    HttpResponse<Buffer> sse = await(stack.client.get("/v1/retrieve/stream?query="
        + URLEncoder.encode("ROS 2 node", StandardCharsets.UTF_8) + "&collection=" + HYBRID + "&search_mode=dense").send());
    HttpResponse<Buffer> ndjson = await(stack.client.post("/v1/retrieve").putHeader("Accept", "application/x-ndjson")
        .sendJsonObject(new JsonObject().put("query", "ROS 2 node").put("collection", HYBRID)));
    HttpResponse<Buffer> fallback = await(stack.client.get("/v1/retrieve/stream?query=nodes").send());

    Event meta = Http.sse(sse.bodyAsString()).get(0);
    assertThat(meta.name()).isEqualTo("meta");
    assertThat(meta.data().getJsonObject("search_params").getString("search_mode")).isEqualTo("dense");
    JsonObject first = Http.ndjson(ndjson.bodyAsString()).get(0);
    assertThat(first.getString("event")).isEqualTo("meta");
    assertThat(first.getJsonObject("data").getJsonObject("search_params").getString("search_mode")).isEqualTo("hybrid");
    JsonObject fellBack = Http.sse(fallback.bodyAsString()).get(0).data().getJsonObject("search_params");
    assertThat(fellBack.getString("search_mode")).isEqualTo("dense");
    assertThat(fellBack.getString("fallback")).isNotBlank();
  }

  @Test
  @DisplayName("batch slots each run and echo their own mode")
  void batchModes() {
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve/batch").sendJsonObject(new JsonObject()
        .put("queries", new JsonArray()
            .add(new JsonObject().put("query", "ROS 2 node").put("collection", HYBRID))
            .add(new JsonObject().put("query", "ROS 2 node").put("collection", HYBRID).put("search_mode", "dense"))
            .add(new JsonObject().put("query", "ROS 2 node"))
            .add(new JsonObject().put("query", "ROS 2 node").put("search_mode", "both")))));

    assertThat(response.statusCode()).isEqualTo(200);
    JsonArray slots = response.bodyAsJsonObject().getJsonArray("results");
    assertThat(slots.getJsonObject(0).getJsonObject("search_params").getString("search_mode")).isEqualTo("hybrid");
    assertThat(slots.getJsonObject(1).getJsonObject("search_params").getString("search_mode")).isEqualTo("dense");
    assertThat(slots.getJsonObject(2).getJsonObject("search_params").getString("fallback")).isNotBlank();
    assertThat(slots.getJsonObject(3).getJsonObject("error").getString("code")).isEqualTo("INVALID_REQUEST");
  }
}
