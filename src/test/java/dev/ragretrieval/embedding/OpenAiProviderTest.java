package dev.ragretrieval.embedding;

import static dev.ragretrieval.embedding.EmbeddingTestConfigs.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.embedding.openai.OpenAiProvider;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OpenAiProviderTest extends EmbeddingServerFixture {

  private static final String KEY = "sk-test-openai-91ab";
  private static final int DIM = 24;

  OpenAiProviderTest() {
    super(KEY, 1536);
  }

  @Test
  @DisplayName("sends model, input, dimensions and float encoding; orders vectors by index")
  void embedsInOrder(Vertx vertx, VertxTestContext test) {
    List<String> texts = List.of("first text", "second text", "third one");
    new OpenAiProvider(vertx, EmbeddingTestConfigs.openAi(server.baseUrl(), KEY, DIM, 1), dev.ragretrieval.observability.RagMetrics.detached())
        .embed(texts, InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10)))
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          // the server answers data in reverse order: the provider must sort by index
          for (int i = 0; i < texts.size(); i++) {
            assertThat(vectors.get(i)).containsExactly(CohereTestServer.vectorFor(texts.get(i), DIM));
          }
          JsonObject sent = server.requests().get(0);
          assertThat(sent.getString("model")).isEqualTo(EmbeddingTestConfigs.OPENAI_MODEL);
          assertThat(sent.getJsonArray("input")).isEqualTo(new JsonArray(texts));
          assertThat(sent.getInteger("dimensions")).isEqualTo(DIM);
          assertThat(sent.getString("encoding_format")).isEqualTo("float");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a rejected key is UPSTREAM_ERROR although the upstream's message repeats the key")
  void wrongKeyNotEchoed(Vertx vertx, VertxTestContext test) {
    String wrongKey = "sk-wrong-0c77";
    new OpenAiProvider(vertx, EmbeddingTestConfigs.openAi(server.baseUrl(), wrongKey, DIM, 3), dev.ragretrieval.observability.RagMetrics.detached())
        .embed(List.of("x"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains("rejected the API key").doesNotContain(wrongKey);
          assertThat(server.callCount()).isEqualTo(1);
        })));
  }

  @Test
  @DisplayName("5xx is retried, then UPSTREAM_ERROR; 429 maps to RATE_LIMIT")
  void serverErrorsAndRateLimit(Vertx vertx, VertxTestContext test) {
    OpenAiProvider openAi = new OpenAiProvider(vertx, EmbeddingTestConfigs.openAi(server.baseUrl(), KEY, DIM, 2), dev.ragretrieval.observability.RagMetrics.detached());
    server.failNext(2, 502, null);
    server.failNext(2, 429, "2");
    openAi.embed(List.of("x"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .recover(first -> {
          test.verify(() -> {
            assertThat(((ServiceException) first).code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
            assertThat(server.callCount()).isEqualTo(2);
          });
          // a deadline shorter than Retry-After: no second attempt, RATE_LIMIT at once
          return openAi.embed(List.of("x"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(1)));
        })
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.RATE_LIMIT);
          assertThat(error.retryAfterSeconds()).isEqualTo(2);
          assertThat(server.callCount()).isEqualTo(3);
        })));
  }

  @Test
  @DisplayName("malformed JSON is UPSTREAM_ERROR and not retried")
  void badJson(Vertx vertx, VertxTestContext test) {
    server.badJsonNext(1);
    new OpenAiProvider(vertx, EmbeddingTestConfigs.openAi(server.baseUrl(), KEY, DIM, 3), dev.ragretrieval.observability.RagMetrics.detached())
        .embed(List.of("x"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(server.callCount()).isEqualTo(1);
        })));
  }
}
