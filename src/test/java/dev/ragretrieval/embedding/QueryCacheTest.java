package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("The query-vector cache behind the embedding address")
class QueryCacheTest {

  private static final String KEY = "cache-test-key";
  private static final int DIM = 16;

  private final RagMetrics metrics = RagMetrics.detached();
  /** The cache the verticle of {@link #stack} fills. */
  private QueryCache cache;
  private String deployment;

  private Future<CohereTestServer> stack(Vertx vertx, int cacheSize) {
    return CohereTestServer.start(vertx, KEY, DIM).compose(server -> {
      AppConfig config = ConfigLoader.fromJson(new JsonObject(), Map.of(
          "EMBEDDING_PROVIDER", "cohere", "COHERE_API_KEY", KEY, "COHERE_BASE_URL", server.baseUrl(),
          "COHERE_EMBED_DIMENSION", String.valueOf(DIM)));
      EmbeddingProvider provider = EmbeddingProviders.create(vertx, config.embedding(), metrics);
      cache = QueryCache.of(cacheSize, provider, metrics);
      return vertx.deployVerticle(new EmbeddingVerticle(provider, cache))
          .map(id -> {
            deployment = id;
            return server;
          });
    });
  }

  @Test
  @DisplayName("a client sharing the cache answers a cached question itself, without the event bus; a miss still goes there")
  void clientReadsTheCacheBeforeTheEventBus(Vertx vertx, VertxTestContext test) {
    stack(vertx, 100).onComplete(test.succeeding(server -> {
      EmbeddingClient client = new EmbeddingClient(vertx, cache);
      Deadline deadline = Deadline.in(Duration.ofSeconds(10));
      client.embed(List.of("what is a node"), InputType.SEARCH_QUERY, deadline)
          // with the verticle gone, only what the client finds in the cache can still be answered
          .compose(first -> vertx.undeploy(deployment).map(first))
          .onComplete(test.succeeding(first -> {
            Future<EmbedResponse> cached = client.embed(List.of("What is a node?", "what is a  node"),
                InputType.SEARCH_QUERY, deadline);
            Future<EmbedResponse> partlyCached = client.embed(List.of("what is a node", "what is a topic"),
                InputType.SEARCH_QUERY, deadline);
            Future<EmbedResponse> document = client.embed(List.of("what is a node"), InputType.SEARCH_DOCUMENT, deadline);
            Future.join(cached, partlyCached, document).onComplete(done -> test.verify(() -> {
              assertThat(cached.result().vectors()).hasSize(2)
                  .allSatisfy(v -> assertThat(v).containsExactly(first.vectors().get(0)));
              assertThat(cached.result().model()).isEqualTo(first.model());
              assertThat(cached.result().dimension()).isEqualTo(DIM);
              assertThat(partlyCached.failed()).as("a request with one miss asks the verticle").isTrue();
              assertThat(((ServiceException) partlyCached.cause()).code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
              assertThat(document.failed()).as("documents are never read from the cache").isTrue();
              assertThat(server.callCount()).isEqualTo(1);
              // one miss (the verticle's), two hits (the client's); the failed requests counted nothing
              assertThat(cacheLookups("miss")).isEqualTo(1.0);
              assertThat(cacheLookups("hit")).isEqualTo(2.0);
              test.completeNow();
            }));
          }));
    }));
  }

  @Test
  @DisplayName("through a client sharing the cache, each text is still counted once: hits by the client, mixed requests by the verticle")
  void sharedClientCountsOnce(Vertx vertx, VertxTestContext test) {
    stack(vertx, 100).onComplete(test.succeeding(server -> {
      EmbeddingClient client = new EmbeddingClient(vertx, cache);
      Deadline deadline = Deadline.in(Duration.ofSeconds(10));
      client.embed(List.of("what is a node"), InputType.SEARCH_QUERY, deadline)
          .compose(first -> client.embed(List.of("What is a node?"), InputType.SEARCH_QUERY, deadline))
          .compose(hit -> client.embed(List.of("what is a node", "what is a topic"), InputType.SEARCH_QUERY, deadline))
          .onComplete(test.succeeding(mixed -> test.verify(() -> {
            assertThat(mixed.vectors().get(1)).containsExactly(CohereTestServer.vectorFor("what is a topic", DIM));
            assertThat(cacheLookups("hit")).isEqualTo(2.0);
            assertThat(cacheLookups("miss")).isEqualTo(2.0);
            assertThat(server.callCount()).isEqualTo(2);
            test.completeNow();
          })));
    }));
  }

  @Test
  @DisplayName("questions that differ only in case, spacing or trailing punctuation share one entry; upstream gets the caller's text")
  void normalisedKeys(Vertx vertx, VertxTestContext test) {
    stack(vertx, 100).onComplete(test.succeeding(server ->
        embed(vertx, InputType.SEARCH_QUERY, "What is a  Node?")
            .compose(first -> embed(vertx, InputType.SEARCH_QUERY, "what is a node", " WHAT IS A NODE ?! ")
                .map(second -> List.of(first, second)))
            .compose(pair -> embed(vertx, InputType.SEARCH_QUERY, "what is a node in C++")
                .compose(cpp -> embed(vertx, InputType.SEARCH_QUERY, "what is a node in C"))
                .map(c -> pair))
            .onComplete(test.succeeding(pair -> test.verify(() -> {
              assertThat(server.requests().get(0).getJsonArray("texts").getList()).containsExactly("What is a  Node?");
              assertThat(pair.get(1).vectors()).allSatisfy(v -> assertThat(v).containsExactly(pair.get(0).vectors().get(0)));
              // "C++" and "C" are different questions: only sentence punctuation is dropped
              assertThat(server.callCount()).isEqualTo(3);
              test.completeNow();
            })))));
  }

  @Test
  @DisplayName("query-cache hits and misses are counted in rag_cache_requests_total")
  void hitsAndMissesCounted(Vertx vertx, VertxTestContext test) {
    stack(vertx, 100).onComplete(test.succeeding(server ->
        embed(vertx, InputType.SEARCH_QUERY, "what is a node")
            .compose(first -> embed(vertx, InputType.SEARCH_QUERY, "What is a node?", "what is a topic"))
            .onComplete(test.succeeding(done -> test.verify(() -> {
              assertThat(cacheLookups("hit")).isEqualTo(1.0);
              assertThat(cacheLookups("miss")).isEqualTo(2.0);
              assertThat(metrics.registry().find("rag_embedding_inputs_total").tag("provider", "cohere").counter()
                  .count()).isEqualTo(2.0);
              test.completeNow();
            })))));
  }

  @Test
  @DisplayName("a failed embedding is logged nowhere on its way back: no cache WARN, no stack trace")
  void failureLogsNothing(Vertx vertx, VertxTestContext test) {
    ch.qos.logback.classic.Logger root =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> captured =
        new ch.qos.logback.core.read.ListAppender<>();
    captured.start();
    root.addAppender(captured);
    stack(vertx, 100).onComplete(test.succeeding(server -> {
      server.failNext(20, 500, null);
      Future.join(embed(vertx, InputType.SEARCH_QUERY, "what is SLAM"), embed(vertx, InputType.SEARCH_QUERY, "what is SLAM"))
          .onComplete(done -> test.verify(() -> {
            root.detachAppender(captured);
            assertThat(done.failed()).isTrue();
            assertThat(captured.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
                .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).isEmpty();
            assertThat(captured.list).allSatisfy(e -> assertThat(e.getThrowableProxy()).isNull());
            test.completeNow();
          }));
    }));
  }

  private double cacheLookups(String result) {
    var counter = metrics.registry().find("rag_cache_requests_total")
        .tags("cache", "query_embedding", "result", result).counter();
    return counter == null ? 0 : counter.count();
  }

  private static Future<EmbedResponse> embed(Vertx vertx, InputType type, String... texts) {
    return new EmbeddingClient(vertx).embed(List.of(texts), type, Deadline.in(java.time.Duration.ofMillis(10_000)));
  }

  @Test
  @DisplayName("a repeated question is answered from the cache; only the new texts of a request go upstream")
  void repeatedQueries(Vertx vertx, VertxTestContext test) {
    stack(vertx, 100).onComplete(test.succeeding(server ->
        embed(vertx, InputType.SEARCH_QUERY, "what is a node")
            .compose(first -> embed(vertx, InputType.SEARCH_QUERY, "what is a node").map(second -> List.of(first, second)))
            .compose(pair -> embed(vertx, InputType.SEARCH_QUERY, "what is a topic", "what is a node")
                .map(mixed -> List.of(pair.get(0), pair.get(1), mixed)))
            .onComplete(test.succeeding(all -> test.verify(() -> {
              assertThat(server.callCount()).isEqualTo(2);
              assertThat(server.requests().get(1).getJsonArray("texts").getList()).containsExactly("what is a topic");
              assertThat(all.get(1).vectors().get(0)).containsExactly(all.get(0).vectors().get(0));
              assertThat(all.get(2).vectors().get(1)).containsExactly(all.get(0).vectors().get(0));
              assertThat(all.get(2).vectors().get(0))
                  .containsExactly(CohereTestServer.vectorFor("what is a topic", DIM));
              test.completeNow();
            })))));
  }

  @Test
  @DisplayName("the same question asked five times at once goes upstream once; every asker gets its vector")
  void concurrentSameQuestionSharesOneCall(Vertx vertx, VertxTestContext test) {
    stack(vertx, 100).onComplete(test.succeeding(server -> {
      // slow answers keep the first call open while the others arrive
      server.delay(Duration.ofMillis(300));
      List<Future<EmbedResponse>> asked = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        asked.add(embed(vertx, InputType.SEARCH_QUERY, "what is ROS 2"));
      }
      asked.add(embed(vertx, InputType.SEARCH_QUERY, "what is a topic"));
      Future.all(asked).onComplete(test.succeeding(all -> test.verify(() -> {
        // each distinct question goes upstream once (arriving together, both may share one call)
        assertThat(server.inputCount()).isEqualTo(2);
        assertThat(server.callCount()).isBetween(1, 2);
        for (int i = 0; i < 5; i++) {
          assertThat(asked.get(i).result().vectors().get(0))
              .containsExactly(CohereTestServer.vectorFor("what is ROS 2", DIM));
        }
        assertThat(asked.get(5).result().vectors().get(0))
            .containsExactly(CohereTestServer.vectorFor("what is a topic", DIM));
        test.completeNow();
      })));
    }));
  }

  @Test
  @DisplayName("a shared call that fails fails every asker with its code, and is not cached: the next asker tries again")
  void sharedFailureNotCached(Vertx vertx, VertxTestContext test) {
    stack(vertx, 100).onComplete(test.succeeding(server -> {
      server.delay(Duration.ofMillis(300));
      server.failNext(1, 401, null);
      List<Future<EmbedResponse>> asked = List.of(
          embed(vertx, InputType.SEARCH_QUERY, "what is SLAM"), embed(vertx, InputType.SEARCH_QUERY, "what is SLAM"));
      Future.join(asked)
          .transform(done -> embed(vertx, InputType.SEARCH_QUERY, "what is SLAM"))
          .onComplete(test.succeeding(again -> test.verify(() -> {
            for (Future<EmbedResponse> failed : asked) {
              assertThat(failed.failed()).isTrue();
              assertThat(((ServiceException) failed.cause()).code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
            }
            assertThat(again.vectors().get(0)).containsExactly(CohereTestServer.vectorFor("what is SLAM", DIM));
            assertThat(server.callCount()).isEqualTo(2);
            test.completeNow();
          })));
    }));
  }

  @Test
  @DisplayName("size 0 turns the cache off")
  void disabled(Vertx vertx, VertxTestContext test) {
    assertSentTwice(vertx, test, 0, InputType.SEARCH_QUERY);
  }

  @Test
  @DisplayName("with a cache, document embeddings still go upstream every time")
  void documentsNotCached(Vertx vertx, VertxTestContext test) {
    assertSentTwice(vertx, test, 100, InputType.SEARCH_DOCUMENT);
  }

  /** The same text embedded twice reaches the upstream twice. */
  private void assertSentTwice(Vertx vertx, VertxTestContext test, int cacheSize, InputType type) {
    stack(vertx, cacheSize).onComplete(test.succeeding(server ->
        embed(vertx, type, "zero moment point")
            .compose(r -> embed(vertx, type, "zero moment point"))
            .onComplete(test.succeeding(r -> test.verify(() -> {
              assertThat(server.callCount()).isEqualTo(2);
              test.completeNow();
            })))));
  }
}
