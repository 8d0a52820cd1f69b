package dev.ragretrieval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.Main;
import dev.ragretrieval.app.Application;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user's session: a server runs on the embedded store while ingest and query run beside it
 * on the same RAG_DATA_DIR, and the server answers from what ingest wrote.
 */
class BesideServerTest {

  @TempDir
  Path dataDir;

  @TempDir
  Path work;

  private Vertx vertx;
  private CohereTestServer cohere;
  private Application app;

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("RAG_DATA_DIR", dataDir.toString());
    env.put("EMBEDDING_PROVIDER", "cohere");
    env.put("COHERE_API_KEY", "beside-key");
    env.put("COHERE_BASE_URL", cohere.baseUrl());
    env.put("COHERE_EMBED_DIMENSION", "48");
    env.put("QDRANT_COLLECTIONS", "garden");
    env.put("RAG_HTTP_PORT", "0");
    env.put("RAG_HTTP_HOST", "127.0.0.1");
    // what an ingest beside the server changes is asked again at once; the result cache would answer
    // a repeated question from before the ingest for up to its TTL (the trade-off RAG_RESULT_CACHE_TTL_MS states)
    env.put("RAG_RESULT_CACHE_TTL_MS", "0");
    return env;
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
  }

  @BeforeEach
  void startServer() throws Exception {
    vertx = Vertx.vertx();
    cohere = await(CohereTestServer.start(vertx, "beside-key", 48));
    AppConfig config = await(ConfigLoader.load(vertx, env()));
    app = await(Application.start(vertx, config, null));
  }

  @AfterEach
  void stopServer() throws Exception {
    if (app != null) {
      await(app.shutdown());
    }
    await(cohere.stop());
    await(vertx.close());
  }

  record Run(int code, String out, String err) {}

  private Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new CliEnvironment(env(), new PrintWriter(out, true), new PrintWriter(err, true), false), args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  @DisplayName("with serve running: the server is ready, query reads the same store, ingest writes a new collection"
      + " the server then answers from, and a deleted page is gone after re-ingest")
  void ingestAndQueryBesideTheServer() throws Exception {
    assertThat(app.notReadyReason()).isEmpty();
    Run book = run("query", "What is domain randomization?", "--json");
    assertThat(book.code()).as(book.err()).isZero();
    assertThat(new JsonObject(book.out()).getInteger("count")).isPositive();

    Path docs = Files.createDirectories(work.resolve("docs/garden"));
    Files.writeString(docs.resolve("tomatoes.md"), "# Tomatoes\n\n## Watering\n\nWater tomatoes twice a week.\n");
    Files.writeString(docs.resolve("roses.md"), "# Roses\n\n## Pruning\n\nPrune roses in early spring.\n");
    Run ingest = run("ingest", work.toString(), "--collection", "garden");
    assertThat(ingest.code()).as(ingest.err()).isZero();

    String url = "http://127.0.0.1:" + app.httpPort();
    Run remote = run("query", "prune roses", "--collection", "garden", "--url", url, "--json");
    assertThat(remote.code()).as(remote.err()).isZero();
    assertThat(sources(remote)).contains("docs/garden/roses");

    Files.delete(docs.resolve("roses.md"));
    Run again = run("ingest", work.toString(), "--collection", "garden");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).contains("1 document removed");
    Run after = run("query", "prune roses", "--collection", "garden", "--url", url, "--json");
    assertThat(after.code()).as(after.err()).isZero();
    assertThat(sources(after)).doesNotContain("docs/garden/roses");
  }

  private static java.util.List<String> sources(Run run) {
    JsonArray results = new JsonObject(run.out()).getJsonArray("results");
    return results.stream().map(r -> ((JsonObject) r).getString("source_url")).toList();
  }
}
