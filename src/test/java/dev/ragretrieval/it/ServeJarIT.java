package dev.ragretrieval.it;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar as an operator runs it: a separate JVM started with {@code java -jar}, an
 * embedded store filled from the sample book, then SIGTERM with a request in flight. Runs in the
 * integration-test phase, after the jar is built.
 */
@DisplayName("java -jar target/rag-retrieval.jar: serves, then shuts down gracefully on SIGTERM")
class ServeJarIT {

  private static final String KEY = "it-cohere-key";
  private static final int DIM = 64;

  private Vertx vertx;
  private CohereTestServer cohere;
  private Process process;
  /** JUnit removes it afterwards; each run used to leave a data directory in /tmp. */
  @TempDir
  Path dataDir;
  /** Under target/ (not /tmp): kept for a look after a failure, gone with {@code mvn clean}. */
  private Path log;

  @BeforeEach
  void setUp() throws IOException {
    vertx = Vertx.vertx();
    cohere = await(CohereTestServer.start(vertx, KEY, DIM));
    log = Files.createDirectories(Path.of("target", "it")).resolve("serve-jar.log").toAbsolutePath();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (process != null && process.isAlive()) {
      // gone before JUnit deletes its data directory
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    await(cohere.stop());
    await(vertx.close());
  }

  @Test
  @DisplayName("ready over the sample book; SIGTERM: readiness DOWN, the slow request finishes with 200 and is logged, exit 0")
  void serveAndTerminate() throws Exception {
    int port = freePort();
    process = start(port, Map.of(
        "EMBEDDING_PROVIDER", "cohere",
        "COHERE_API_KEY", KEY,
        "COHERE_BASE_URL", cohere.baseUrl(),
        "COHERE_EMBED_DIMENSION", String.valueOf(DIM),
        "RAG_SHUTDOWN_GRACE_MS", "10000"));
    WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port));

    awaitReady(client);
    HttpResponse<Buffer> answer = await(client.post("/v1/retrieve")
        .sendJsonObject(new JsonObject().put("query", "What is the zero moment point?").put("top_k", 3)));
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.bodyAsJsonObject().getInteger("count")).isEqualTo(3);

    // long enough that the request is surely still in flight while readiness is polled below
    cohere.delay(Duration.ofMillis(6000));
    Future<HttpResponse<Buffer>> slow = client.post("/v1/retrieve")
        .sendJsonObject(new JsonObject().put("query", "How do QoS profiles work?"));
    long until = System.currentTimeMillis() + 5_000;
    while (cohere.callCount() == 0 || cohere.requests().stream()
        .noneMatch(r -> r.getJsonArray("texts").contains("How do QoS profiles work?"))) {
      assertThat(System.currentTimeMillis()).as("the slow request reached the embedder").isLessThan(until);
      Thread.sleep(20);
    }

    process.destroy(); // SIGTERM on Linux
    // the JVM handles a signal on its own thread some time after delivery: poll, do not expect it at once
    assertThat(readinessAfterTerm(client)).as("readiness after SIGTERM").isEqualTo(503);
    assertThat(slow.isComplete()).as("the slow request is still in flight when readiness is DOWN").isFalse();

    HttpResponse<Buffer> finished = await(slow);
    assertThat(finished.statusCode()).isEqualTo(200);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exited within 30 s").isTrue();
    assertThat(process.exitValue()).as("exit status; log: %s", log).isZero();
    String output = Files.readString(log);
    assertThat(output).doesNotContain(KEY);
    // the request log is written in batches: both lines, the last one answered during shutdown, reached stdout
    assertThat(output.lines().filter(line -> line.contains("rag.request") && line.contains("route=/v1/retrieve status=200")))
        .as("request log lines; log: %s", output).hasSize(2);
  }

  private Process start(int port, Map<String, String> env) throws IOException {
    Path jar = Path.of(System.getProperty("rag.jar", "target/rag-retrieval.jar"));
    assertThat(jar).as("the packaged jar").exists();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder = new ProcessBuilder(java, "-jar", jar.toAbsolutePath().toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("RAG_") || name.startsWith("QDRANT_")
        || name.startsWith("COHERE_") || name.startsWith("OPENAI_") || name.equals("EMBEDDING_PROVIDER"));
    builder.environment().putAll(env);
    builder.environment().put("RAG_HTTP_PORT", String.valueOf(port));
    builder.environment().put("RAG_DATA_DIR", dataDir.toString());
    builder.environment().put("RAG_LOG_FORMAT", "plain");
    builder.directory(new File(System.getProperty("user.dir")));
    return builder.start();
  }

  /** The first non-200 readiness status within 4 s of SIGTERM, or 200 if it never changed. */
  private int readinessAfterTerm(WebClient client) throws Exception {
    long giveUp = System.currentTimeMillis() + 4_000;
    int status = 200;
    while (status == 200 && System.currentTimeMillis() < giveUp) {
      status = await(client.get("/health/ready").send()).statusCode();
      if (status == 200) {
        Thread.sleep(50);
      }
    }
    return status;
  }

  private void awaitReady(WebClient client) throws InterruptedException {
    long giveUp = System.currentTimeMillis() + 90_000;
    while (System.currentTimeMillis() < giveUp) {
      assertThat(process.isAlive()).as("the service is still running; log: %s", log).isTrue();
      try {
        if (client.get("/health/ready").send().toCompletionStage().toCompletableFuture()
            .get(2, TimeUnit.SECONDS).statusCode() == 200) {
          return;
        }
      } catch (Exception notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("not ready within 90 s; log: " + log);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
