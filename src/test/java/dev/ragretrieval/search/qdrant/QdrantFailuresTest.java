package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Deadline;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.config;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.failure;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import dev.ragretrieval.upstream.Retry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** How Qdrant's failures reach callers: codes, retries, deadlines, restarts, the api key. */
@ExtendWith(VertxExtension.class)
class QdrantFailuresTest {

  private static final String KEY = "s3cret-qdrant-key";

  private final List<QdrantVectorStore> stores = new ArrayList<>();
  private final List<QdrantTestServer> servers = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    stores.forEach(s -> await(s.close()));
    servers.forEach(s -> await(s.stop()));
  }

  @Test
  @DisplayName("the api key travels as gRPC metadata api-key")
  void apiKeySent(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, KEY);
    QdrantVectorStore store = store(vertx, qdrant, KEY, 3);

    assertThat(await(store.search(search(1.0f)))).extracting(ScoredPoint::payload)
        .containsExactly(new JsonObject().put("text", "one"));
    assertThat(qdrant.lastApiKey()).isEqualTo(KEY);
  }

  @Test
  @DisplayName("a wrong api key is UPSTREAM_ERROR whose message never shows the key")
  void wrongApiKey(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, KEY);
    QdrantVectorStore store = store(vertx, qdrant, "wrong-key-123", 3);

    ServiceException error = failure(store.search(search(1.0f)));

    assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    assertThat(error.getMessage()).isEqualTo("Qdrant rejected the api key").doesNotContain("wrong-key-123");
    assertThat(qdrant.callCount("Get")).as("an auth failure is not retried").isEqualTo(1);
  }

  @Test
  @DisplayName("rejected requests and keys never open the circuit; UNAVAILABLE five times does, and then Qdrant is not called")
  void onlyOutagesOpenTheCircuit(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 1);
    await(store.collectionInfo("docs", Deadline.inMillis(30_000)));
    qdrant.failNext(4, GrpcStatus.INVALID_ARGUMENT, null);
    qdrant.failNext(4, GrpcStatus.UNAUTHENTICATED, null);
    for (int i = 0; i < 8; i++) {
      assertThat(failure(store.search(search(1.0f))).code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    }
    assertThat(await(store.search(search(1.0f)))).isNotEmpty();

    qdrant.failNext(5, GrpcStatus.UNAVAILABLE, null);
    for (int i = 0; i < 5; i++) {
      assertThat(failure(store.search(search(1.0f))).getMessage()).isEqualTo("Qdrant is unavailable");
    }
    int calls = qdrant.callCount("Query");
    ServiceException open = failure(store.search(search(1.0f)));
    assertThat(open.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(open.getMessage()).contains("circuit open");
    assertThat(open.retryAfterSeconds()).isPositive();
    assertThat(qdrant.callCount("Query")).isEqualTo(calls).isEqualTo(14);
  }

  @Test
  @DisplayName("RESOURCE_EXHAUSTED is retried after the server's retry-after, then succeeds")
  void rateLimitRetried(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 3);
    await(store.collectionInfo("docs", Deadline.inMillis(30_000)));
    qdrant.failNext(1, GrpcStatus.RESOURCE_EXHAUSTED, "1");

    List<ScoredPoint> hits = await(store.search(search(1.0f)));

    assertThat(hits).hasSize(1);
    assertThat(qdrant.callCount("Query")).isEqualTo(2);
  }

  @Test
  @DisplayName("RESOURCE_EXHAUSTED beyond the attempts is RATE_LIMIT carrying retry-after")
  void rateLimitSurfaces(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 1);
    await(store.collectionInfo("docs", Deadline.inMillis(30_000)));
    qdrant.failNext(1, GrpcStatus.RESOURCE_EXHAUSTED, "7");

    ServiceException error = failure(store.search(search(1.0f)));

    assertThat(error.code()).isEqualTo(ErrorCode.RATE_LIMIT);
    assertThat(error.retryAfterSeconds()).isEqualTo(7);
  }

  @Test
  @DisplayName("UNAVAILABLE is retried; INVALID_ARGUMENT is not")
  void unavailableRetried(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 3);
    await(store.collectionInfo("docs", Deadline.inMillis(30_000)));
    qdrant.failNext(2, GrpcStatus.UNAVAILABLE, null);

    assertThat(await(store.search(search(1.0f)))).hasSize(1);
    assertThat(qdrant.callCount("Query")).isEqualTo(3);

    qdrant.failNext(1, GrpcStatus.INVALID_ARGUMENT, null);
    assertThat(failure(store.search(search(1.0f))).code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    assertThat(qdrant.callCount("Query")).isEqualTo(4);
  }

  @Test
  @DisplayName("a call whose stream Qdrant resets (stopping gracefully) is sent again on a fresh connection and answers")
  void resetStreamRetried(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 3);
    await(store.search(search(1.0f))); // the collection's vector name is known: the next call is one Query

    qdrant.resetNext(1);

    assertThat(await(store.search(search(1.0f)))).extracting(ScoredPoint::payload)
        .containsExactly(new JsonObject().put("text", "one"));
    assertThat(qdrant.callCount("Query")).isEqualTo(3);
  }

  @Test
  @DisplayName("streams reset on every attempt are 503 CONNECTION_ERROR with a Retry-After, never 502 or 504")
  void resetStreamIsConnectionError(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 2);
    await(store.search(search(1.0f)));

    qdrant.resetNext(2);
    ServiceException error = failure(store.search(search(1.0f)));

    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(error.code().httpStatus()).isEqualTo(503);
    assertThat(error.retryAfterSeconds()).isPositive();
    assertThat(error.getMessage()).isEqualTo("Qdrant closed the call (restarting?)");
  }

  @Test
  @DisplayName("a stopped server is CONNECTION_ERROR")
  void serverStopped(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 2);
    await(store.search(search(1.0f)));
    await(qdrant.stop());

    ServiceException error = failure(store.search(search(1.0f)));

    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
  }

  @Test
  @DisplayName("after Qdrant restarts, the next call succeeds on a new connection")
  void reconnectsAfterRestart(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 1);
    assertThat(await(store.search(search(1.0f)))).hasSize(1);

    await(qdrant.stop());
    assertThat(failure(store.search(search(1.0f))).code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    await(qdrant.restart());

    assertThat(await(store.search(search(1.0f)))).hasSize(1);
    assertThat(await(store.search(search(1.0f)))).hasSize(1);
  }

  @Test
  @DisplayName("a restart between two calls is invisible, even with no retries: the dead connection is not reused")
  void restartBetweenCalls(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 1);
    assertThat(await(store.search(search(1.0f)))).hasSize(1);

    // the pool may hand out the old connection before its GOAWAY is seen; a few rounds catch that race
    for (int round = 0; round < 5; round++) {
      await(qdrant.restart());

      assertThat(await(store.search(search(1.0f)))).as("call after restart %d", round + 1).hasSize(1);
    }
  }

  @Test
  @DisplayName("a server slower than the request deadline is TIMEOUT")
  void slowServerTimesOut(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 3);
    await(store.collectionInfo("docs", Deadline.inMillis(30_000)));
    qdrant.delay(Duration.ofSeconds(2));

    ServiceException error = failure(store.search(
        new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(), in(Duration.ofMillis(300)))));

    assertThat(error.code()).isEqualTo(ErrorCode.TIMEOUT);
    assertThat(qdrant.callCount("Query")).as("a timeout is not retried").isEqualTo(1);
  }

  @Test
  @DisplayName("a deadline already passed fails with TIMEOUT without calling Qdrant")
  void deadlinePassed(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    QdrantVectorStore store = store(vertx, qdrant, null, 3);

    ServiceException error = failure(store.search(
        new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(), Deadline.passed())));

    assertThat(error.code()).isEqualTo(ErrorCode.TIMEOUT);
    assertThat(qdrant.callCount("Query")).isZero();
  }

  @Test
  @DisplayName("with tls on, a server that does not speak TLS is CONNECTION_ERROR and sees no call")
  void tlsAgainstPlaintext(Vertx vertx) {
    QdrantTestServer qdrant = server(vertx, null);
    AppConfig.Qdrant tls = new AppConfig.Qdrant(Optional.of("127.0.0.1"), qdrant.port(), Optional.of(KEY), true,
        "docs", Set.of(), Duration.ofSeconds(3), 1);
    QdrantVectorStore store = new QdrantVectorStore(vertx, tls, dev.ragretrieval.observability.RagMetrics.detached());
    stores.add(store);

    ServiceException error = failure(store.search(search(1.0f)));

    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(error.getMessage()).doesNotContain(KEY);
    assertThat(qdrant.lastApiKey()).isNull();
  }

  private QdrantTestServer server(Vertx vertx, String key) {
    QdrantTestServer qdrant = await(QdrantTestServer.start(vertx, 0, key));
    servers.add(qdrant);
    qdrant.createCollection("docs", 2);
    qdrant.upsert("docs", UUID.randomUUID().toString(), new float[] {1, 0}, new JsonObject().put("text", "one"));
    return qdrant;
  }

  private QdrantVectorStore store(Vertx vertx, QdrantTestServer qdrant, String key, int attempts) {
    QdrantVectorStore store = new QdrantVectorStore(vertx, config("127.0.0.1", qdrant.port(), key, attempts),
        new Retry.Policy(attempts, Duration.ofMillis(20), Duration.ofMillis(200)), HostResolver.of(vertx), dev.ragretrieval.observability.RagMetrics.detached());
    stores.add(store);
    return store;
  }

  private static SearchRequest search(float x) {
    return new SearchRequest("docs", new float[] {x, 0}, 1, 0f, Map.of(), in(Duration.ofSeconds(5)));
  }
}
