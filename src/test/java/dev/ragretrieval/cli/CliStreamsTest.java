package dev.ragretrieval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.Main;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the one-shot verbs write where (docs/API.md section 1): stdout holds only the answer, so
 * {@code query --json | jq} works even with logging at INFO; a bad option value is a usage error.
 */
class CliStreamsTest {

  private static Vertx vertx;
  private static CohereTestServer cohere;

  @TempDir
  static Path dataDir;

  @BeforeAll
  static void startCohere() throws Exception {
    vertx = Vertx.vertx();
    cohere = CohereTestServer.start(vertx, "streams-key", 24).toCompletionStage().toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stopCohere() throws Exception {
    cohere.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** {@code out}/{@code err}: the command's writers; {@code stdout}/{@code stderr}: the process streams (logs). */
  record Run(int code, String out, String err, String stdout, String stderr) {}

  private static Run run(String... args) {
    return run(dataDir, args);
  }

  private static Run run(Path data, String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("RAG_DATA_DIR", data.toString());
    env.put("EMBEDDING_PROVIDER", "cohere");
    env.put("COHERE_API_KEY", "streams-key");
    env.put("COHERE_BASE_URL", cohere.baseUrl());
    env.put("COHERE_EMBED_DIMENSION", "24");
    env.put("RAG_LOG_LEVEL", "INFO");
    env.put("RAG_LOG_FORMAT", "json");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
      code = Main.run(new CliEnvironment(env, new PrintWriter(out, true), new PrintWriter(err, true), false), args);
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
    return new Run(code, out.toString(), err.toString(), stdout.toString(StandardCharsets.UTF_8),
        stderr.toString(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("query --json: log lines go to stderr, stdout carries nothing but the JSON answer")
  void logsStayOffStdout() {
    Run r = run("query", "What is a ROS 2 node?", "--json", "--top-k", "2");

    assertThat(r.code()).isZero();
    assertThat(new JsonObject(r.out()).getString("query")).isEqualTo("What is a ROS 2 node?");
    // the first run loads the sample book, which logs at INFO
    assertThat(r.stderr()).contains("sample book");
    assertThat(r.stdout()).isEmpty();
  }

  @Test
  @DisplayName("query with --top-k 0 or a blank question exits 2 with one line on stderr")
  void invalidValuesAreUsageErrors() {
    for (String[] args : new String[][] {{"query", "nodes", "--top-k", "0"}, {"query", "  "},
        {"query", "nodes", "--score-threshold", "1.5"}}) {
      Run r = run(args);
      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(r.out()).isEmpty();
      assertThat(r.err().strip()).startsWith("error: ").doesNotContain("\n", "Exception");
    }
  }

  @Test
  @DisplayName("on a first run, a bad option is refused before the sample book is loaded: one line, and the store left empty")
  void usageErrorBeforeTheSampleBook(@TempDir Path fresh) throws Exception {
    Run r = run(fresh, "query", "nodes", "--top-k", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("error: -k/--top-k must be between 1 and").doesNotContain("\n");
    try (var files = Files.list(fresh)) {
      assertThat(files).as("nothing was written to the data folder").isEmpty();
    }
  }
}
