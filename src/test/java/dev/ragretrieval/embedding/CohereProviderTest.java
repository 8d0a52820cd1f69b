package dev.ragretrieval.embedding;

import static dev.ragretrieval.embedding.EmbeddingTestConfigs.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.cohere.CohereProvider;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CohereProviderTest extends EmbeddingServerFixture {

  private static final String KEY = "test-cohere-key-3f9a";
  private static final int DIM = 16;

  CohereProviderTest() {
    super(KEY, DIM);
  }

  private CohereProvider provider(Vertx vertx, int maxAttempts) {
    return new CohereProvider(vertx, EmbeddingTestConfigs.cohere(server.baseUrl(), KEY, DIM, maxAttempts), dev.ragretrieval.observability.RagMetrics.detached());
  }

  @Test
  @DisplayName("sends Cohere's documented /v2/embed body: model, texts, input_type, base64 embeddings, truncate END")
  void sendsDocumentedRequest(Vertx vertx, VertxTestContext test) {
    CohereProvider cohere = provider(vertx, 1);
    List<String> texts = List.of("What is a ROS 2 node?", "How do topics work?");
    cohere.embed(texts, InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .compose(queries -> {
          test.verify(() -> {
            assertThat(queries).hasSize(2);
            assertThat(queries.get(0)).containsExactly(CohereTestServer.vectorFor(texts.get(0), DIM));
            assertThat(queries.get(1)).containsExactly(CohereTestServer.vectorFor(texts.get(1), DIM));
          });
          return cohere.embed(List.of("A node is a process."), InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10)));
        })
        .onComplete(test.succeeding(documents -> test.verify(() -> {
          JsonObject query = server.requests().get(0);
          assertThat(query.getString("model")).isEqualTo(EmbeddingTestConfigs.COHERE_MODEL);
          assertThat(query.getJsonArray("texts")).isEqualTo(new JsonArray(texts));
          assertThat(query.getString("input_type")).isEqualTo("search_query");
          assertThat(query.getJsonArray("embedding_types")).isEqualTo(new JsonArray().add("base64"));
          assertThat(query.getString("truncate")).isEqualTo("END");
          assertThat(server.requests().get(1).getString("input_type")).isEqualTo("search_document");
          assertThat(documents).hasSize(1);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("429 with Retry-After is retried no sooner than the header says, then succeeds")
  void retriesRateLimitAfterRetryAfter(Vertx vertx, VertxTestContext test) {
    server.failNext(1, 429, "2");
    provider(vertx, 3).embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          assertThat(vectors).hasSize(1);
          assertThat(server.callCount()).isEqualTo(2);
          List<Long> arrivals = server.arrivalNanos();
          assertThat(Duration.ofNanos(arrivals.get(1) - arrivals.get(0))).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("429 on every attempt ends in RATE_LIMIT carrying the upstream's Retry-After")
  void rateLimitBeyondAttempts(Vertx vertx, VertxTestContext test) {
    server.failNext(10, 429, "2");
    provider(vertx, 2).embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.RATE_LIMIT);
          assertThat(error.retryAfterSeconds()).isEqualTo(2);
          assertThat(server.callCount()).isEqualTo(2);
        })));
  }

  @Test
  @DisplayName("a Retry-After longer than the time left fails at once with RATE_LIMIT instead of waiting")
  void rateLimitLongerThanDeadline(Vertx vertx, VertxTestContext test) {
    server.failNext(10, 429, "120");
    provider(vertx, 4).embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(5)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.RATE_LIMIT);
          assertThat(error.retryAfterSeconds()).isEqualTo(120);
          assertThat(server.callCount()).isEqualTo(1);
        })));
  }

  @Test
  @DisplayName("500 is retried up to the attempt limit, then UPSTREAM_ERROR")
  void serverErrorRetriedThenUpstreamError(Vertx vertx, VertxTestContext test) {
    server.failNext(10, 500, null);
    provider(vertx, 3).embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains("500");
          assertThat(server.callCount()).isEqualTo(3);
        })));
  }

  @Test
  @DisplayName("a 503 followed by a good answer succeeds")
  void transientServerErrorRecovers(Vertx vertx, VertxTestContext test) {
    server.failNext(1, 503, null);
    provider(vertx, 3).embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          assertThat(vectors.get(0)).containsExactly(CohereTestServer.vectorFor("hello", DIM));
          assertThat(server.callCount()).isEqualTo(2);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("malformed JSON is UPSTREAM_ERROR and not retried")
  void badJson(Vertx vertx, VertxTestContext test) {
    server.badJsonNext(1);
    provider(vertx, 3).embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains("malformed");
          assertThat(server.callCount()).isEqualTo(1);
        })));
  }

  @Test
  @DisplayName("vectors of the wrong size are UPSTREAM_ERROR and not retried")
  void wrongDimension(Vertx vertx, VertxTestContext test) {
    server.wrongDimensionNext(1);
    provider(vertx, 3).embed(List.of("hello", "world"), InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains(String.valueOf(DIM + 1)).contains(String.valueOf(DIM));
          assertThat(server.callCount()).isEqualTo(1);
        })));
  }

  @Test
  @DisplayName("a rejected key is UPSTREAM_ERROR, not retried, and the message never contains the key")
  void wrongKey(Vertx vertx, VertxTestContext test) {
    String wrongKey = "wrong-key-7c1d";
    CohereProvider cohere = new CohereProvider(vertx,
        EmbeddingTestConfigs.cohere(server.baseUrl(), wrongKey, DIM, 3), dev.ragretrieval.observability.RagMetrics.detached());
    cohere.embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).isEqualTo("Cohere rejected the API key").doesNotContain(wrongKey);
          assertThat(server.callCount()).isEqualTo(1);
        })));
  }

  @Test
  @DisplayName("another 4xx is UPSTREAM_ERROR with Cohere's own message, not retried; float does not cure it, so base64 stays")
  void otherClientErrorCarriesCohereMessage(Vertx vertx, VertxTestContext test) {
    // bypasses the verticle's batching on purpose: Cohere refuses more than 96 texts
    List<String> tooMany = IntStream.range(0, 97).mapToObj(i -> "text " + i).toList();
    provider(vertx, 3).embed(tooMany, InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10)))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains("HTTP 400").contains("at most 96");
          // a 400 may be the base64 format's: the same texts were asked for once more, as float
          assertThat(embeddingTypes()).containsExactly("base64", "float");
        })));
  }

  @Test
  @DisplayName("answers that arrive in several pieces, with a Content-Length or chunked without one, give the same vectors and errors")
  void answersInPieces(Vertx vertx, VertxTestContext test) {
    // 96 texts: an answer of about 12 KB, more than one of the client's reads (8 KB chunks)
    List<String> texts = IntStream.range(0, 96).mapToObj(i -> "a ROS 2 question, number " + i).toList();
    List<String> tooMany = IntStream.range(0, 97).mapToObj(i -> "text " + i).toList();
    CohereProvider cohere = provider(vertx, 1);
    cohere.embed(texts, InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)))
        .compose(sized -> {
          assertVectorsOf(texts, sized);
          server.chunked(true);
          return cohere.embed(texts, InputType.SEARCH_QUERY, in(Duration.ofSeconds(10)));
        })
        .compose(chunked -> {
          assertVectorsOf(texts, chunked);
          return cohere.embed(tooMany, InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10)));
        })
        // an assertion that failed above arrives here instead of the ServiceException, and fails the test
        .onComplete(test.failing(serviceError(test, error ->
            assertThat(error.getMessage()).contains("HTTP 400").contains("at most 96"))));
  }

  private static void assertVectorsOf(List<String> texts, List<float[]> vectors) {
    assertThat(vectors).hasSize(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      assertThat(vectors.get(i)).containsExactly(CohereTestServer.vectorFor(texts.get(i), DIM));
    }
  }

  @Test
  @DisplayName("a 400 that float does not cure leaves the provider on base64")
  void refusalOfBothFormatsKeepsBase64(Vertx vertx, VertxTestContext test) {
    List<String> tooMany = IntStream.range(0, 97).mapToObj(i -> "text " + i).toList();
    CohereProvider cohere = provider(vertx, 1);
    cohere.embed(tooMany, InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10)))
        .transform(refused -> cohere.embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10))))
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          assertThat(vectors.get(0)).containsExactly(CohereTestServer.vectorFor("hello", DIM));
          assertThat(embeddingTypes()).containsExactly("base64", "float", "base64");
          test.completeNow();
        })));
  }

  /** The one embedding type each recorded request asked for, in arrival order. */
  private List<String> embeddingTypes() {
    return server.requests().stream().map(r -> {
      JsonArray types = r.getJsonArray("embedding_types");
      assertThat(types).hasSize(1);
      return types.getString(0);
    }).toList();
  }

  @Test
  @DisplayName("an unreachable server is CONNECTION_ERROR after the retries")
  void serverStoppedIsConnectionError(Vertx vertx, VertxTestContext test) {
    CohereProvider cohere = provider(vertx, 2);
    server.stop()
        .compose(stopped -> cohere.embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10))))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
          assertThat(error.getMessage()).doesNotContain(KEY);
        })));
  }

  @Test
  @DisplayName("a server slower than the deadline gives TIMEOUT and no attempt starts after the deadline")
  void slowServerTimesOut(Vertx vertx, VertxTestContext test) {
    server.delay(Duration.ofSeconds(3));
    provider(vertx, 4).embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofMillis(400)))
        .onComplete(test.failing(failure ->
            // give a wrongly scheduled retry the chance to arrive before counting
            vertx.setTimer(500, id -> serviceError(test, error -> {
              assertThat(error.code()).isEqualTo(ErrorCode.TIMEOUT);
              assertThat(server.callCount()).isEqualTo(1);
            }).handle(failure))));
  }

  @Test
  @DisplayName("Cohere failing with 5xx opens the circuit: the next call is CONNECTION_ERROR with Retry-After and never sent; 4xx never opens it")
  void circuitOpensOnServerErrorsOnly(Vertx vertx, VertxTestContext test) {
    AppConfig.Embedding base = EmbeddingTestConfigs.cohere(server.baseUrl(), KEY, DIM, 1);
    CohereProvider cohere = new CohereProvider(vertx, new AppConfig.Embedding(base.provider(), base.timeout(),
        base.maxAttempts(), base.initialBackoff(), base.maxBackoff(), base.cohere(), base.openai(), base.local(),
        base.queryCacheSize(), new AppConfig.Circuit(2, Duration.ofSeconds(10), Duration.ofSeconds(30))), dev.ragretrieval.observability.RagMetrics.detached());
    // each refused call is two requests: base64, then at once float (a 400 may be the format's)
    server.failNext(6, 400, null);
    server.failNext(2, 503, null);
    Future<List<float[]>> chain = Future.succeededFuture();
    // three refused calls (the caller's fault), then two server errors (Cohere's)
    for (int i = 0; i < 5; i++) {
      chain = chain.transform(previous -> cohere.embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10))));
    }
    chain.transform(fifth -> cohere.embed(List.of("hello"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(10))))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
          assertThat(error.getMessage()).contains("Cohere").contains("circuit open");
          assertThat(error.retryAfterSeconds()).isBetween(1, 30);
          assertThat(server.callCount()).as("the sixth call was not sent").isEqualTo(8);
          assertThat(embeddingTypes()).as("both formats refused: no switch to float")
              .containsExactly("base64", "float", "base64", "float", "base64", "float", "base64", "base64");
        })));
  }
}
