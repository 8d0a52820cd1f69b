package dev.ragretrieval.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigException;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.embedding.local.LocalOnnxProvider;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.core.buffer.Buffer;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up as operators see it (docs/API.md sections 1 and 8): the embedded default answers health
 * probes while the sample book loads, and a port that cannot be bound stops start-up with one line.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 2, timeUnit = TimeUnit.MINUTES)
class StartupContractTest {

  private static final String KEY = "startup-key";
  private static final int DIM = 32;

  @TempDir
  Path dataDir;

  private CohereTestServer cohere;
  private Application app;

  @BeforeEach
  void startCohere(Vertx vertx, VertxTestContext test) {
    CohereTestServer.start(vertx, KEY, DIM).onComplete(test.succeeding(c -> {
      cohere = c;
      test.completeNow();
    }));
  }

  @AfterEach
  void stop(VertxTestContext test) {
    Future<Void> stopped = app == null ? Future.succeededFuture() : app.shutdown();
    stopped.eventually(() -> cohere.stop()).onComplete(test.succeedingThenComplete());
  }

  private AppConfig config(int port) {
    Map<String, String> env = new HashMap<>();
    env.put("RAG_DATA_DIR", dataDir.toString());
    env.put("EMBEDDING_PROVIDER", "cohere");
    env.put("COHERE_API_KEY", KEY);
    env.put("COHERE_BASE_URL", cohere.baseUrl());
    env.put("COHERE_EMBED_DIMENSION", String.valueOf(DIM));
    env.put("RAG_HTTP_PORT", String.valueOf(port));
    return ConfigLoader.fromJson(new JsonObject().put("http", new JsonObject().put("host", "127.0.0.1")), env);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Test
  @DisplayName("/health/ready answers 503 DOWN while the sample book loads and 200 UP once it is in")
  void readyOnlyAfterTheSampleBook(Vertx vertx, VertxTestContext test) throws IOException {
    // slow embeddings hold the load open long enough for a probe to land in it
    cohere.delay(Duration.ofMillis(1500));
    int port = freePort();
    WebClient client = WebClient.create(vertx);
    AtomicReference<HttpResponse<Buffer>> firstAnswer = new AtomicReference<>();
    AtomicReference<Boolean> startedBeforeFirstAnswer = new AtomicReference<>();
    Future<Application> started = Application.start(vertx, config(port), null);
    long poller = vertx.setPeriodic(20, id -> client.get(port, "127.0.0.1", "/health/ready").send()
        .onSuccess(response -> {
          if (firstAnswer.compareAndSet(null, response)) {
            startedBeforeFirstAnswer.set(started.isComplete());
          }
        }));
    started.compose(running -> {
      app = running;
      vertx.cancelTimer(poller);
      return client.get(port, "127.0.0.1", "/health/ready").send();
    }).onComplete(test.succeeding(after -> test.verify(() -> {
      HttpResponse<Buffer> before = firstAnswer.get();
      assertThat(before).as("a probe was answered while the book was loading").isNotNull();
      assertThat(startedBeforeFirstAnswer.get()).as("start-up still running at the first answer").isFalse();
      assertThat(before.statusCode()).isEqualTo(503);
      JsonObject down = before.bodyAsJsonObject();
      assertThat(down.getString("status")).isEqualTo("DOWN");
      assertThat(down.getString("reason")).contains("sample book");

      assertThat(after.statusCode()).isEqualTo(200);
      JsonObject up = after.bodyAsJsonObject();
      assertThat(up.getString("status")).isEqualTo("UP");
      assertThat(up.getJsonArray("checks").stream().map(JsonObject.class::cast)
          .filter(c -> "collection".equals(c.getString("name"))).findFirst().orElseThrow()
          .getLong("points")).isPositive();
      client.close();
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("start-up reports not ready, with the reason, when the store cannot answer; ready when it can")
  void notReadyReasonOnlyWhenNotReady(Vertx vertx, VertxTestContext test) throws IOException {
    AppConfig embedded = config(freePort());
    AppConfig unreachable = ConfigLoader.fromJson(new JsonObject().put("http", new JsonObject().put("host", "127.0.0.1")),
        Map.of("EMBEDDING_PROVIDER", "cohere", "COHERE_API_KEY", KEY, "COHERE_BASE_URL", cohere.baseUrl(),
            "COHERE_EMBED_DIMENSION", String.valueOf(DIM), "RAG_HTTP_PORT", String.valueOf(freePort()),
            "QDRANT_HOST", "127.0.0.1", "QDRANT_GRPC_PORT", "1", "QDRANT_TIMEOUT_MS", "500"));
    Application.start(vertx, unreachable, null)
        .compose(down -> {
          test.verify(() -> assertThat(down.notReadyReason()).hasValueSatisfying(r -> assertThat(r).isNotBlank()));
          return down.shutdown();
        })
        .compose(v -> Application.start(vertx, embedded, null))
        .onComplete(test.succeeding(up -> test.verify(() -> {
          app = up;
          assertThat(up.notReadyReason()).isEmpty();
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("with the local model, start-up loads it before it completes (readiness), not at the first question,"
      + " also when no sample book is loaded")
  void localModelLoadedAtStartUp(Vertx vertx, VertxTestContext test) throws IOException {
    AppConfig local = ConfigLoader.fromJson(new JsonObject().put("http", new JsonObject().put("host", "127.0.0.1")),
        Map.of("RAG_DATA_DIR", dataDir.toString(), "EMBEDDING_PROVIDER", "local", "RAG_LOAD_SAMPLE_BOOK", "false",
            "RAG_HTTP_PORT", String.valueOf(freePort())));
    Application.start(vertx, local, null).onComplete(test.succeeding(up -> test.verify(() -> {
      app = up;
      assertThat(up.provider()).isInstanceOfSatisfying(LocalOnnxProvider.class, p -> assertThat(p.loaded()).isTrue());
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("a port already in use stops start-up with one line naming the address, no class name")
  void portInUse(Vertx vertx, VertxTestContext test) throws IOException {
    ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Application.start(vertx, config(taken.getLocalPort()), null)
        .onComplete(test.failing(failure -> test.verify(() -> {
          taken.close();
          assertThat(failure).isInstanceOf(ConfigException.class);
          assertThat(failure.getMessage())
              .contains("127.0.0.1:" + taken.getLocalPort(), "RAG_HTTP_PORT")
              .doesNotContain("\n", "Exception", "io.netty", "java.");
          test.completeNow();
        })));
  }
}
