package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Rerank with Cohere /v2/rerank (RERANK_PROVIDER=cohere): candidates reranked into the top_k")
class RerankApiTest {

  private static final String QUERY = "Which sensors feed perception pipelines?";
  private TestStack stack;

  @BeforeEach
  void start(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RERANK_PROVIDER", "cohere", "COHERE_RERANK_MODEL", "rerank-v3.5")));
  }

  @AfterEach
  void stop() {
    await(stack.close());
  }

  private JsonObject retrieve(JsonObject body) {
    HttpResponse<Buffer> response = await(stack.client.post("/v1/retrieve").sendJsonObject(body));
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  private List<JsonObject> rerankRequests() {
    return stack.cohere.requests().stream().filter(r -> r.containsKey("documents")).toList();
  }

  @Test
  @DisplayName("top_k x 4 candidates go to /v2/rerank; results follow relevance_score, keep the cosine as score, above the threshold")
  void rerankOrder() {
    JsonObject body = retrieve(new JsonObject().put("query", QUERY).put("top_k", 3).put("score_threshold", 0.0));

    JsonObject sent = rerankRequests().get(0);
    assertThat(sent.getString("model")).isEqualTo("rerank-v3.5");
    assertThat(sent.getString("query")).isEqualTo(QUERY);
    assertThat(sent.getInteger("top_n")).isEqualTo(3);
    List<Integer> candidates = TestStack.bruteForce(QUERY, 12, 0.0).stream().map(Map.Entry::getKey).toList();
    assertThat(sent.getJsonArray("documents").getList())
        .isEqualTo(candidates.stream().map(i -> TestStack.CHUNKS[i][2]).toList());

    JsonArray results = body.getJsonArray("results");
    assertThat(results).hasSize(3);
    double previous = Double.MAX_VALUE;
    for (int r = 0; r < results.size(); r++) {
      JsonObject result = results.getJsonObject(r);
      assertThat(result.getInteger("rank")).isEqualTo(r + 1);
      double relevance = result.getDouble("relevance_score");
      assertThat(relevance).isEqualTo(CohereTestServer.relevance(QUERY, result.getString("text")));
      assertThat(relevance).isLessThanOrEqualTo(previous);
      previous = relevance;
      assertThat(result.getDouble("score")).isGreaterThanOrEqualTo(0.0);
    }
    JsonObject params = body.getJsonObject("search_params");
    assertThat(params.getString("ranking")).isEqualTo("rerank");
    assertThat(params.getString("rerank_model")).isEqualTo("rerank-v3.5");
    assertThat(params.getInteger("rerank_candidates")).isEqualTo(12);
  }

  @Test
  @DisplayName("score_threshold still applies to the cosine: candidates below it never reach the reranker")
  void thresholdBeforeRerank() {
    double threshold = 0.3;
    retrieve(new JsonObject().put("query", QUERY).put("top_k", 3).put("score_threshold", threshold));

    int above = TestStack.bruteForce(QUERY, 12, threshold).size();
    assertThat(rerankRequests().get(0).getJsonArray("documents")).hasSize(above);
  }

  @Test
  @DisplayName("a 429 from /v2/rerank with Retry-After is retried and the request still succeeds")
  void rateLimitRetried() {
    retrieve(new JsonObject().put("query", QUERY)); // the query vector is cached from here on
    stack.cohere.failNext(1, 429, "0");
    // another top_k: the answer is not in the result cache, so it is searched and reranked again
    JsonObject body = retrieve(new JsonObject().put("query", QUERY).put("top_k", 4));

    assertThat(rerankRequests()).hasSize(3);
    assertThat(body.getJsonArray("results").getJsonObject(0).containsKey("relevance_score")).isTrue();
  }
}
