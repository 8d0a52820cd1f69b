package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Deadline;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.failure;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS to a self-hosted Qdrant behind a private CA, end to end: the settings an operator sets
 * (QDRANT_HOST, QDRANT_TLS, QDRANT_CA_CERT, QDRANT_API_KEY) go through ConfigLoader into a
 * QdrantVectorStore that talks gRPC over TLS (HTTP/2 via ALPN) to a server with a certificate for
 * localhost.
 */
@ExtendWith(VertxExtension.class)
class QdrantTlsTest {

  private static final String KEY = "s3cret-tls-key";

  private final List<QdrantVectorStore> stores = new ArrayList<>();
  private QdrantTestServer qdrant;
  private Path caFile;

  @BeforeEach
  void startServer(Vertx vertx, @TempDir Path dir) throws IOException {
    qdrant = await(QdrantTestServer.startTls(vertx, KEY));
    qdrant.createCollection("docs", 2);
    qdrant.upsert("docs", UUID.randomUUID().toString(), new float[] {1, 0}, new JsonObject().put("text", "one"));
    caFile = Files.writeString(dir.resolve("qdrant-ca.pem"), qdrant.certificatePem());
  }

  @AfterEach
  void cleanUp() {
    stores.forEach(s -> await(s.close()));
    await(qdrant.stop());
  }

  @Test
  @DisplayName("with QDRANT_TLS=true and QDRANT_CA_CERT, search and collectionInfo succeed over TLS and carry the api key")
  void trustedPrivateCa(Vertx vertx) {
    QdrantVectorStore store = store(vertx, env("localhost", "true", caFile));

    assertThat(await(store.search(search()))).extracting(ScoredPoint::payload)
        .containsExactly(new JsonObject().put("text", "one"));
    assertThat(await(store.collectionInfo("docs", Deadline.inMillis(30_000)))).isEqualTo(new CollectionInfo("docs", 2, 1, false));
    assertThat(qdrant.lastApiKey()).isEqualTo(KEY);
    assertThat(qdrant.callCount("Query")).isEqualTo(1);
  }

  @Test
  @DisplayName("without QDRANT_CA_CERT the JVM's trust store rejects the private certificate: CONNECTION_ERROR, key never sent")
  void defaultTrustStoreRejects(Vertx vertx) {
    QdrantVectorStore store = store(vertx, env("localhost", "true", null));

    ServiceException error = failure(store.search(search()));

    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(error.getMessage()).doesNotContain(KEY);
    assertThat(qdrant.lastApiKey()).isNull();
    assertThat(qdrant.callCount("Query")).isZero();
  }

  @Test
  @DisplayName("host names are verified: the trusted certificate for localhost does not pass for 127.0.0.1")
  void hostNameVerified(Vertx vertx) {
    QdrantVectorStore store = store(vertx, env("127.0.0.1", "true", caFile));

    ServiceException error = failure(store.search(search()));

    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(error.getMessage()).doesNotContain(KEY);
    assertThat(qdrant.lastApiKey()).isNull();
  }

  @Test
  @DisplayName("a plaintext client against the TLS server fails cleanly with CONNECTION_ERROR and reaches no RPC")
  void plaintextAgainstTls(Vertx vertx) {
    QdrantVectorStore store = store(vertx, env("localhost", "false", null));

    ServiceException error = failure(store.search(search()));

    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(error.getMessage()).doesNotContain(KEY);
    assertThat(qdrant.lastApiKey()).isNull();
    assertThat(qdrant.callCount("Query")).isZero();
  }

  /** The environment an operator would set, read the way the service reads it. */
  private Map<String, String> env(String host, String tls, Path ca) {
    Map<String, String> env = new HashMap<>();
    env.put("QDRANT_HOST", host);
    env.put("QDRANT_GRPC_PORT", String.valueOf(qdrant.port()));
    env.put("QDRANT_TLS", tls);
    env.put("QDRANT_API_KEY", KEY);
    env.put("QDRANT_COLLECTION", "docs");
    if (ca != null) {
      env.put("QDRANT_CA_CERT", ca.toString());
    }
    return env;
  }

  private QdrantVectorStore store(Vertx vertx, Map<String, String> env) {
    AppConfig.Qdrant config = ConfigLoader.fromJson(new JsonObject(), env).qdrant();
    QdrantVectorStore store = new QdrantVectorStore(vertx, config, dev.ragretrieval.observability.RagMetrics.detached());
    stores.add(store);
    return store;
  }

  private static SearchRequest search() {
    return new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(), in(Duration.ofSeconds(5)));
  }
}
