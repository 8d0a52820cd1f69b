package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RAG_RESULT_CACHE_TTL_MS: the same question again within the TTL is answered without Cohere or
 * Qdrant, with the same chunks and an answer of its own; anything that changes the answer misses.
 */
@ExtendWith(VertxExtension.class)
@DisplayName("result cache: a repeated question is answered without embedding or search")
class ResultCacheApiTest {

  private static final String QUESTION = "How do nodes exchange messages on topics?";

  private TestStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
  }

  private JsonObject ask(JsonObject body) {
    var response = await(stack.client.post("/v1/retrieve").sendJsonObject(body));
    assertThat(response.statusCode()).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  private static JsonObject question(String query, int topK) {
    return new JsonObject().put("query", query).put("top_k", topK).put("score_threshold", 0.0);
  }

  /** Asks {@code body} twice: a question is kept from its second asking on. */
  private JsonObject askTwice(JsonObject body) {
    ask(body);
    return ask(body);
  }

  @Test
  @DisplayName("asked a third time: same results, its own query_id, no embedding call and no Qdrant query")
  void repeatedQuestionIsAHit(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of()));
    JsonObject first = askTwice(question(QUESTION, 3));
    int embeds = stack.cohere.callCount();
    int queries = stack.qdrant.callCount("Query");

    JsonObject again = ask(question(QUESTION, 3));

    assertThat(again.getJsonArray("results")).isEqualTo(first.getJsonArray("results"));
    assertThat(again.getString("query_id")).isNotEqualTo(first.getString("query_id"));
    assertThat(again.getJsonObject("search_params")).isEqualTo(first.getJsonObject("search_params"));
    assertThat(again.getJsonObject("timings_ms").getDouble("search")).isZero();
    assertThat(stack.cohere.callCount()).isEqualTo(embeds);
    assertThat(stack.qdrant.callCount("Query")).isEqualTo(queries);
  }

  @Test
  @DisplayName("a question asked once is not kept: its second asking is searched")
  void askedOnceIsNotKept(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of()));
    ask(question(QUESTION, 3));
    int queries = stack.qdrant.callCount("Query");

    ask(question(QUESTION, 3));

    assertThat(stack.qdrant.callCount("Query")).isEqualTo(queries + 1);
  }

  @Test
  @DisplayName("another top_k, filter or search mode is searched anew")
  void whatChangesTheAnswerMisses(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of()));
    askTwice(question(QUESTION, 3));
    int queries = stack.qdrant.callCount("Query");

    JsonObject more = ask(question(QUESTION, 5));
    ask(question(QUESTION, 3).put("filter", new JsonObject().put("chapter", "module-1-ros2")));
    ask(question(QUESTION, 3).put("search_mode", "dense"));

    assertThat(more.getJsonArray("results")).hasSize(5);
    assertThat(stack.qdrant.callCount("Query")).isEqualTo(queries + 3);
  }

  @Test
  @DisplayName("RAG_RESULT_CACHE_TTL_MS=0: every question is searched")
  void offSearchesEveryTime(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_RESULT_CACHE_TTL_MS", "0")));
    askTwice(question(QUESTION, 3));
    int queries = stack.qdrant.callCount("Query");

    ask(question(QUESTION, 3));

    assertThat(stack.qdrant.callCount("Query")).isEqualTo(queries + 1);
  }

  @Test
  @DisplayName("after a write of the service's own, the same question is searched again")
  void ownWriteForgetsAnswers(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of()));
    askTwice(question(QUESTION, 3));
    int queries = stack.qdrant.callCount("Query");

    stack.app.retrieval().storeChanged();
    ask(question(QUESTION, 3));

    assertThat(stack.qdrant.callCount("Query")).isEqualTo(queries + 1);
  }
}
