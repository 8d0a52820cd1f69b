package dev.ragretrieval.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class EvalCaseTest {

  private static JsonObject chunk(String chunkId, String sourceUrl, String section) {
    return new JsonObject().put("chunk_id", chunkId).put("source_url", sourceUrl).put("section", section);
  }

  @Test
  @DisplayName("a Validation Test is read with all its fields: id, query_text, expected_results, category, criteria, executed_at")
  void validationTestFields() {
    List<EvalCase> tests = EvalCase.parse("""
        [{"test_id": "t-7", "query_text": "What is ZMP?", "test_category": "factual",
          "expected_results": ["docs/m4/02-walk#The Zero Moment Point", {"chunk_id": "docs/m4/02-walk#3"},
                               {"source_url": "docs/m4/02-walk", "section": "Capture Point"}],
          "success_criteria": {"min_accuracy": 0.5, "min_similarity_score": 0.4},
          "executed_at": "2026-11-01T10:00:00Z"}]
        """);
    EvalCase test = tests.get(0);
    assertThat(test.testId()).isEqualTo("t-7");
    assertThat(test.query()).isEqualTo("What is ZMP?");
    assertThat(test.category()).isEqualTo("factual");
    assertThat(test.expected()).containsExactly(Expected.of("docs/m4/02-walk#The Zero Moment Point"),
        new Expected("docs/m4/02-walk#3", null, null, null), new Expected(null, "docs/m4/02-walk", "Capture Point", null));
    assertThat(test.criteria()).isEqualTo(new EvalCase.SuccessCriteria(0.5, 0.4));
    assertThat(test.executedAt()).isEqualTo("2026-11-01T10:00:00Z");
  }

  @Test
  @DisplayName("the first shape {query, expected} still reads, as JSONL with comments, and gets an id and a category")
  void oldShapeAsJsonLines() {
    List<EvalCase> tests = EvalCase.parse("""
        # questions
        {"query": "What is SLAM?", "expected": "SLAM"}

        {"query": "What is a node?", "expected": ["Nodes", "docs/m1/02-nodes"]}
        """);
    assertThat(tests).extracting(EvalCase::testId).containsExactly("test-1", "test-2");
    assertThat(tests).extracting(EvalCase::category).containsOnly(EvalCase.UNCATEGORIZED);
    assertThat(tests.get(1).expected()).containsExactly(Expected.of("Nodes"), Expected.of("docs/m1/02-nodes"));
    assertThat(tests.get(0).criteria().any()).isFalse();
  }

  @Test
  @DisplayName("an object with a \"tests\" array is read like a plain array")
  void testsEnvelope() {
    assertThat(EvalCase.parse("{\"tests\": [{\"query_text\": \"q\", \"expected_results\": \"s\"}]}"))
        .extracting(EvalCase::query).containsExactly("q");
  }

  @Test
  @DisplayName("a test without question or expected results, bad criteria or bad JSON is INVALID_REQUEST naming the test")
  void invalidFiles() {
    assertThatThrownBy(() -> EvalCase.parse("[{\"test_id\": \"x1\", \"query_text\": \"q\"}]"))
        .isInstanceOf(ServiceException.class).hasMessageContaining("x1")
        .satisfies(e -> assertThat(((ServiceException) e).code()).isEqualTo(ErrorCode.INVALID_REQUEST));
    assertThatThrownBy(() -> EvalCase.parse(
        "[{\"test_id\": \"x2\", \"query_text\": \"q\", \"expected_results\": \"s\", \"success_criteria\": {\"min_accuracy\": 3}}]"))
        .hasMessageContaining("x2").hasMessageContaining("min_accuracy");
    assertThatThrownBy(() -> EvalCase.parse("[{\"query\": ")).hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> EvalCase.parse("{\"query\": \"q\", \"expected\": \"s\"}\nnot json"))
        .hasMessageContaining("line 2");
    assertThatThrownBy(() -> EvalCase.parse("[]")).hasMessageContaining("no tests");
  }

  @Test
  @DisplayName("a string expected result matches by chunk id, source path end, section, or source#section")
  void stringMatching() {
    JsonObject chunk = chunk("https://site/docs/m1/qos.html#4", "https://site/docs/m1/qos.html", "Durability");
    assertThat(Expected.of("https://site/docs/m1/qos.html#4").matches(chunk)).isTrue();
    assertThat(Expected.of("docs/m1/qos").matches(chunk)).isTrue();
    assertThat(Expected.of("qos.html").matches(chunk)).isTrue();
    assertThat(Expected.of("durability").matches(chunk)).isTrue();
    assertThat(Expected.of("m1/qos#Durability").matches(chunk)).isTrue();
    assertThat(Expected.of("m1/qos#History").matches(chunk)).isFalse();
    assertThat(Expected.of("os").matches(chunk)).as("a path end is whole segments").isFalse();

    // a folder's index page, named by its file, is the folder's address on the built site
    JsonObject built = chunk("u#0", "http://127.0.0.1:3000/docs/intro/humanoid-landscape/", "Platforms");
    assertThat(Expected.of("docs/intro/humanoid-landscape/index").matches(built)).isTrue();
    assertThat(Expected.of("docs/intro/humanoid-landscape/index.md").matches(built)).isTrue();
    assertThat(Expected.of("intro/README.md").matches(chunk("u#1", "https://site/intro/", "Intro"))).isTrue();
    assertThat(Expected.of("docs/intro/index").matches(built)).as("another folder's index").isFalse();
    assertThat(Expected.of("index").matches(built)).as("a bare index names no folder").isFalse();
    assertThat(Expected.of("index.html").matches(chunk("u#2", "https://site/index.html", "Home"))).isTrue();
  }

  @Test
  @DisplayName("an object expected result needs every part it names to match")
  void objectMatching() {
    JsonObject chunk = chunk("c-1", "docs/m1/qos", "Durability");
    assertThat(Expected.of(new JsonObject().put("source_url", "docs/m1/qos")).matches(chunk)).isTrue();
    assertThat(Expected.of(new JsonObject().put("source_url", "docs/m1/qos").put("section", "History")).matches(chunk))
        .isFalse();
    assertThat(Expected.of(new JsonObject().put("chunk_id", "c-2")).matches(chunk)).isFalse();
    assertThat(Expected.of(new JsonObject().put("other", "x"))).isNull();
  }
}
