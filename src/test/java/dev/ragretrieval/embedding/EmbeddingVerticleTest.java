package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import static dev.ragretrieval.embedding.EmbeddingTestConfigs.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.embedding.cohere.CohereProvider;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class EmbeddingVerticleTest extends EmbeddingServerFixture {

  private static final String KEY = "bus-test-key-5e2b";
  private static final int DIM = 12;

  EmbeddingVerticleTest() {
    super(KEY, DIM);
  }

  private Future<String> deployCohere(Vertx vertx, int maxAttempts) {
    return EmbeddingVerticle.deploy(vertx,
        new CohereProvider(vertx, EmbeddingTestConfigs.cohere(server.baseUrl(), KEY, DIM, maxAttempts), dev.ragretrieval.observability.RagMetrics.detached()));
  }

  @Test
  @DisplayName("150 texts go out in calls of at most 96 and come back in input order")
  void splitsAndReassembles(Vertx vertx, VertxTestContext test) {
    List<String> texts = IntStream.range(0, 150).mapToObj(i -> "chunk number " + i + " about topic " + (i % 7)).toList();
    deployCohere(vertx, 1)
        .compose(id -> new EmbeddingClient(vertx).embed(texts, InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10))))
        .onComplete(test.succeeding(response -> test.verify(() -> {
          assertThat(response.model()).isEqualTo(EmbeddingTestConfigs.COHERE_MODEL);
          assertThat(response.dimension()).isEqualTo(DIM);
          assertThat(response.vectors()).hasSize(150);
          for (int i = 0; i < texts.size(); i++) {
            assertThat(response.vectors().get(i)).as("vector %d", i)
                .containsExactly(CohereTestServer.vectorFor(texts.get(i), DIM));
          }
          List<Integer> sizes = server.requests().stream().map(r -> r.getJsonArray("texts").size()).toList();
          assertThat(sizes).allMatch(n -> n <= 96);
          assertThat(sizes).containsExactlyInAnyOrder(96, 54);
          assertThat(server.requests()).allMatch(r -> "search_document".equals(r.getString("input_type")));
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("an empty list is answered without calling the provider")
  void emptyRequest(Vertx vertx, VertxTestContext test) {
    deployCohere(vertx, 1)
        .compose(id -> new EmbeddingClient(vertx).embed(List.of(), InputType.SEARCH_QUERY, in(Duration.ofSeconds(5))))
        .onComplete(test.succeeding(response -> test.verify(() -> {
          assertThat(response.vectors()).isEmpty();
          assertThat(server.callCount()).isZero();
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("RATE_LIMIT crosses the bus with its message and retry-after intact")
  void rateLimitKeepsRetryAfter(Vertx vertx, VertxTestContext test) {
    server.failNext(10, 429, "7");
    deployCohere(vertx, 1)
        .compose(id -> new EmbeddingClient(vertx).embed(List.of("q"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(5))))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.RATE_LIMIT);
          assertThat(error.retryAfterSeconds()).isEqualTo(7);
          assertThat(error.getMessage()).isEqualTo("Cohere is rate-limiting embedding requests");
        })));
  }

  @Test
  @DisplayName("UPSTREAM_ERROR from one batch fails the whole request with the provider's message")
  void upstreamErrorKeepsMessage(Vertx vertx, VertxTestContext test) {
    server.wrongDimensionNext(1);
    List<String> texts = IntStream.range(0, 100).mapToObj(i -> "t" + i).toList();
    deployCohere(vertx, 1)
        .compose(id -> new EmbeddingClient(vertx).embed(texts, InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(5))))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).startsWith("Cohere returned vectors of size " + (DIM + 1));
          assertThat(error.retryAfterSeconds()).isNull();
        })));
  }

  @Test
  @DisplayName("a provider slower than the deadline ends in TIMEOUT at the caller")
  void deadlineIsTimeout(Vertx vertx, VertxTestContext test) {
    server.delay(Duration.ofSeconds(3));
    deployCohere(vertx, 3)
        .compose(id -> new EmbeddingClient(vertx).embed(List.of("q"), InputType.SEARCH_QUERY, in(Duration.ofMillis(300))))
        .onComplete(test.failing(serviceError(test, error -> assertThat(error.code()).isEqualTo(ErrorCode.TIMEOUT))));
  }

  @Test
  @DisplayName("a deadline already past fails with TIMEOUT without reaching the provider")
  void pastDeadline(Vertx vertx, VertxTestContext test) {
    deployCohere(vertx, 1)
        .compose(id -> new EmbeddingClient(vertx).embed(List.of("q"), InputType.SEARCH_QUERY, Deadline.passed()))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.TIMEOUT);
          assertThat(server.callCount()).isZero();
        })));
  }

  @Test
  @DisplayName("deploying twice in one Vertx works (codecs register once) and both serve")
  void deployTwice(Vertx vertx, VertxTestContext test) {
    EmbeddingClient client = new EmbeddingClient(vertx);
    deployCohere(vertx, 1)
        .compose(first -> deployCohere(vertx, 1))
        .compose(second -> Future.all(
            client.embed(List.of("one"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(5))),
            client.embed(List.of("two"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(5)))))
        .onComplete(test.succeeding(both -> test.verify(() -> {
          assertThat(server.callCount()).isEqualTo(2);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("without a deployed verticle the client fails with CONNECTION_ERROR")
  void noVerticle(Vertx vertx, VertxTestContext test) {
    new EmbeddingClient(vertx).embed(List.of("q"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(5)))
        .onComplete(test.failing(serviceError(test, error -> assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR))));
  }

  @Test
  @DisplayName("vectors of the wrong size from any provider are UPSTREAM_ERROR")
  void verticleChecksDimension(Vertx vertx, VertxTestContext test) {
    // a provider that claims 8 dimensions but answers 5: the verticle must not pass that on
    EmbeddingProvider lying = new EmbeddingProvider() {
      @Override public String model() { return "lying"; }
      @Override public int dimension() { return 8; }
      @Override public Future<List<float[]>> embed(List<String> texts, InputType type, Deadline deadline) {
        return Future.succeededFuture(texts.stream().map(t -> new float[5]).toList());
      }
    };
    EmbeddingVerticle.deploy(vertx, lying)
        .compose(id -> new EmbeddingClient(vertx).embed(List.of("q"), InputType.SEARCH_QUERY, in(Duration.ofSeconds(5))))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains("size 5").contains("expected 8");
        })));
  }

  @Test
  @DisplayName("a body that is not an EmbedRequest is refused with INVALID_REQUEST")
  void wrongBody(Vertx vertx, VertxTestContext test) {
    deployCohere(vertx, 1)
        .compose(id -> vertx.eventBus().request(EmbeddingVerticle.ADDRESS, new JsonObject().put("texts", "q")))
        .onComplete(test.failing(failure -> test.verify(() -> {
          assertThat(EmbeddingClient.toServiceException(failure).code()).isEqualTo(ErrorCode.INVALID_REQUEST);
          test.completeNow();
        })));
  }
}
