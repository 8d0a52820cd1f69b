package dev.ragretrieval.cli;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.Main;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** eval --url and query --url against the whole service (in-process Qdrant and Cohere behind it), with client keys on. */
@ExtendWith(VertxExtension.class)
class EvalOverHttpTest {

  private static final String KEY = "eval-client-key";

  private TestStack stack;

  @TempDir
  Path work;

  @BeforeEach
  void start(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_API_KEYS", KEY)));
  }

  @AfterEach
  void stop() {
    await(stack.close());
  }

  record Run(int code, String out, String err) {}

  private Run run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new CliEnvironment(env, new PrintWriter(out, true), new PrintWriter(err, true), false), args);
    return new Run(code, out.toString(), err.toString());
  }

  private Path tests() throws Exception {
    Path file = work.resolve("tests.jsonl");
    Files.writeString(file, """
        {"test_id": "nodes", "query_text": "A ROS 2 node is a process", "expected_results": "Nodes", "test_category": "factual"}
        {"test_id": "slam", "query_text": "SLAM builds a map while localizing", "expected_results": {"section": "SLAM"}, "test_category": "conceptual"}
        {"test_id": "miss", "query_text": "Gazebo simulates physics", "expected_results": "Cooking", "test_category": "conceptual"}
        """);
    return file;
  }

  private String url() {
    return "http://127.0.0.1:" + stack.app.httpPort();
  }

  @Test
  @DisplayName("eval --url scores a running service over HTTP, with the key from --api-key or RAG_API_KEY")
  void overHttp() throws Exception {
    Path report = work.resolve("report.json");
    Run r = run(Map.of(), "eval", tests().toString(), "--url", url(), "--api-key", KEY, "--output", report.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("3 tests against " + url(), "collection 'textbook_chunks'", "hit@5: 2/3 = 0.667");
    JsonObject json = new JsonObject(Files.readString(report));
    assertThat(json.getString("target")).isEqualTo(url());
    assertThat(json.getJsonArray("tests").getJsonObject(0).getInteger("first_relevant_rank")).isEqualTo(1);
    assertThat(json.getJsonObject("categories").getJsonObject("conceptual").getDouble("hit_at_k")).isEqualTo(0.5);

    Run fromEnv = run(Map.of("RAG_API_KEY", KEY), "eval", tests().toString(), "--url", url(), "--min-accuracy", "0.9");
    assertThat(fromEnv.code()).isEqualTo(1);
    assertThat(fromEnv.err().strip()).isEqualTo("error: accuracy (hit@5) 0.667 is below --min-accuracy 0.900");
  }

  @Test
  @DisplayName("eval --url --search-mode dense,hybrid asks the server once per mode and reports each")
  void severalModesOverHttp() throws Exception {
    Path report = work.resolve("modes.json");
    Run r = run(Map.of("RAG_API_KEY", KEY), "eval", tests().toString(), "--url", url(), "--search-mode", "dense,hybrid",
        "--output", report.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonObject modes = new JsonObject(Files.readString(report)).getJsonObject("modes");
    assertThat(modes.fieldNames()).containsExactly("dense", "hybrid");
    assertThat(modes.getJsonObject("dense").getString("search_mode_used")).isEqualTo("dense");
    // a collection without a keyword index answers hybrid requests with dense, and the header says so
    String hybridUsed = modes.getJsonObject("hybrid").getString("search_mode_used");
    assertThat(r.out()).contains("3 tests against " + url(), "| **all** | 3 |", hybridUsed.equals("hybrid")
        ? "search modes: dense, hybrid" : "search modes: dense, hybrid (service used " + hybridUsed + ")");
    for (String mode : modes.fieldNames()) {
      JsonObject one = modes.getJsonObject(mode);
      assertThat(one.getString("target")).isEqualTo(url());
      assertThat(one.getString("search_mode_requested")).isEqualTo(mode);
      assertThat(one.getJsonObject("overall").getInteger("tests")).isEqualTo(3);
      assertThat(one.getJsonArray("tests").getJsonObject(2).getBoolean("hit_at_k")).isFalse();
    }
  }

  @Test
  @DisplayName("eval --url without the key, or against nothing listening, exits 1 with one line and no secret")
  void refused() throws Exception {
    Run noKey = run(Map.of(), "eval", tests().toString(), "--url", url());
    assertThat(noKey.code()).isEqualTo(1);
    assertThat(noKey.err().strip()).startsWith("error: ").contains("401", "UNAUTHORIZED").doesNotContain("\n");

    Map<String, String> env = new HashMap<>();
    env.put("RAG_API_KEY", "wrong-secret-value");
    Run wrong = run(env, "eval", tests().toString(), "--url", url());
    assertThat(wrong.code()).isEqualTo(1);
    assertThat(wrong.err()).doesNotContain("wrong-secret-value");

    Run down = run(Map.of(), "eval", tests().toString(), "--url", "http://127.0.0.1:1");
    assertThat(down.code()).isEqualTo(1);
    assertThat(down.err().strip()).startsWith("error: cannot reach http://127.0.0.1:1").doesNotContain("\n");
  }

  @Test
  @DisplayName("query --url goes through the same client: the server's 400 is a usage error naming the option,"
      + " a missing key exits 1 naming the server and the 401")
  void queryOverHttp() {
    Run ok = run(Map.of("RAG_API_KEY", KEY), "query", "A ROS 2 node is a process", "--url", url(), "--json");
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(new JsonObject(ok.out()).getInteger("count")).isPositive();

    Run badK = run(Map.of(), "query", "nodes", "--url", url(), "--api-key", KEY, "-k", "0");
    assertThat(badK.code()).isEqualTo(2);
    assertThat(badK.err()).contains("-k/--top-k must be between 1 and").doesNotContain("'top_k'");

    Run noKey = run(Map.of(), "query", "nodes", "--url", url());
    assertThat(noKey.code()).isEqualTo(1);
    assertThat(noKey.err().strip()).startsWith("error: " + url() + " answered HTTP 401 UNAUTHORIZED: ")
        .doesNotContain("\n");
  }
}
