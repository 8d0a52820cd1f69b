package dev.ragretrieval.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TestResultTest {

  /** A service answer whose results have these sections, with falling scores. */
  private static Retriever.Answer answer(String... sections) {
    JsonArray results = new JsonArray();
    for (int i = 0; i < sections.length; i++) {
      results.add(new JsonObject().put("rank", i + 1).put("chunk_id", "c" + i).put("source_url", "docs/p" + i)
          .put("section", sections[i]).put("score", 0.9 - i * 0.1));
    }
    return Retriever.Answer.of(new JsonObject().put("collection", "book").put("results", results)
        .put("search_params", new JsonObject().put("search_mode", "hybrid")));
  }

  private static EvalCase test(String category, EvalCase.SuccessCriteria criteria, String... expected) {
    return new EvalCase("t", "q", List.of(expected).stream().map(Expected::of).toList(), category, criteria, null);
  }

  @Test
  @DisplayName("the first right result's rank and score give hit@1, hit@k and the reciprocal rank")
  void firstRightResult() {
    TestResult r = TestResult.score(test("factual", EvalCase.SuccessCriteria.NONE, "B"), 5, answer("A", "B", "C"));
    assertThat(r.firstRank()).isEqualTo(2);
    assertThat(r.firstScore()).isCloseTo(0.8, within(1e-9));
    assertThat(r.hit()).isTrue();
    assertThat(r.hitAt1()).isFalse();
    assertThat(r.reciprocalRank()).isEqualTo(0.5);
    assertThat(r.searchMode()).isEqualTo("hybrid");
  }

  @Test
  @DisplayName("a string names a chunk id, a source, source#section, a section title or a page title; a source"
      + " matches without Docusaurus' number prefixes, and the chunk's document_id")
  void stringForms() {
    JsonObject chunk = new JsonObject().put("chunk_id", "c7").put("source_url", "https://book.example.org/docs/m4/gait/")
        .put("page_title", "Bipedal Locomotion").put("section", "The Zero Moment Point");
    assertThat(List.of("c7", "docs/m4/gait", "docs/m4/gait.md", "m4/gait#the zero moment point", "The Zero Moment Point",
        "bipedal locomotion")).allSatisfy(form -> assertThat(Expected.of(form).matches(chunk)).as(form).isTrue());
    assertThat(List.of("c8", "gait#Capture Point", "docs/m4", "Locomotion", "Zero Moment Point"))
        .allSatisfy(form -> assertThat(Expected.of(form).matches(chunk)).as(form).isFalse());
    // a Docusaurus page's address drops its file's number prefixes; a folder ingested with --base-url
    // keeps the file's path as the chunk's document_id
    JsonObject served = new JsonObject().put("source_url", "https://book.example.org/docs/m1/setup")
        .put("section", "Install");
    assertThat(Expected.of("docs/m1/02-setup#Install").matches(served)).isTrue();
    assertThat(Expected.of("docs/m1/03-usage").matches(served)).isFalse();
    JsonObject based = new JsonObject().put("source_url", "https://book.example.org/book/m1/setup")
        .put("section", "Install").put("metadata", new JsonObject().put("document_id", "docs/01-m1/02-setup"));
    assertThat(Expected.of(new JsonObject().put("source_url", "docs/01-m1/02-setup.md")).matches(based)).isTrue();
    assertThat(Expected.of("docs/01-m1/02-setup#Install").matches(based)).isTrue();
    assertThat(Expected.of("docs/01-m1/03-usage").matches(based)).isFalse();
    // a built site that serves its docs at its root (routeBasePath '/'), below its base URL: its page's
    // document_id is its path there, and its chapter the first part of that path below the docs
    JsonObject atRoot = new JsonObject().put("source_url", "https://x.org/book/m1/setup/").put("chapter", "m1")
        .put("section", "Install").put("metadata", new JsonObject().put("document_id", "book/m1/setup"));
    assertThat(List.of("docs/01-m1/02-setup.md", "docs/m1/setup", "docs/m1/setup/index.md", "m1/setup#Install"))
        .allSatisfy(form -> assertThat(Expected.of(form).matches(atRoot)).as(form).isTrue());
    JsonObject chapterIndex = new JsonObject().put("source_url", "https://x.org/book/m1/").put("chapter", "m1")
        .put("metadata", new JsonObject().put("document_id", "book/m1"));
    assertThat(Expected.of("docs/01-m1/index.md").matches(chapterIndex)).isTrue();
    // another folder's page of the same name, or a page without a chapter, is not taken for it
    JsonObject blog = new JsonObject().put("source_url", "https://x.org/book/blog/m1/setup/").put("chapter", "blog")
        .put("metadata", new JsonObject().put("document_id", "book/blog/m1/setup"));
    JsonObject noChapter = atRoot.copy().putNull("chapter").put("source_url", "https://x.org/book/m1/setup/");
    assertThat(List.of("docs/m1/setup", "docs/blog/m1", "docs/setup")).allSatisfy(
        form -> assertThat(Expected.of(form).matches(blog)).as(form).isFalse());
    assertThat(Expected.of("docs/m1/setup").matches(noChapter)).isFalse();
    assertThat(Expected.of("docs/m2/setup").matches(atRoot)).isFalse();
  }

  @Test
  @DisplayName("nDCG@k counts each expected result once and divides by the ideal order")
  void ndcg() {
    // one expected result at rank 2: (1/log2 3) / 1
    assertThat(TestResult.score(test("x", EvalCase.SuccessCriteria.NONE, "B"), 5, answer("A", "B", "B")).ndcg())
        .isCloseTo(1 / (Math.log(3) / Math.log(2)), within(1e-9));
    // two expected at ranks 1 and 3: (1 + 1/log2 4) / (1 + 1/log2 3)
    double expected = (1 + 0.5) / (1 + 1 / (Math.log(3) / Math.log(2)));
    TestResult two = TestResult.score(test("x", EvalCase.SuccessCriteria.NONE, "A", "C"), 5, answer("A", "B", "C"));
    assertThat(two.ndcg()).isCloseTo(expected, within(1e-9));
    assertThat(two.found()).isEqualTo(1.0);
  }

  @Test
  @DisplayName("a right result beyond k is a miss: rank 0, no score, nDCG 0")
  void beyondK() {
    TestResult r = TestResult.score(test("x", EvalCase.SuccessCriteria.NONE, "C"), 2, answer("A", "B", "C"));
    assertThat(r.hit()).isFalse();
    assertThat(r.firstScore()).isNull();
    assertThat(r.ndcg()).isZero();
    assertThat(r.top()).isEqualTo("docs/p0 > A");
  }

  @Test
  @DisplayName("a test below its own min_accuracy or min_similarity_score fails with the reason")
  void successCriteria() {
    EvalCase both = test("x", new EvalCase.SuccessCriteria(1.0, 0.85), "B", "Z");
    TestResult r = TestResult.score(both, 5, answer("A", "B"));
    assertThat(r.passed()).isFalse();
    assertThat(r.failures()).hasSize(2);
    assertThat(r.failures().get(0)).contains("found 0.50", "min_accuracy 1.00");
    assertThat(r.failures().get(1)).contains("0.800", "min_similarity_score 0.850");
    assertThat(TestResult.score(test("x", new EvalCase.SuccessCriteria(0.5, 0.8), "B", "Z"), 5, answer("A", "B")).passed())
        .isTrue();
  }

  @Test
  @DisplayName("a refused slot is a failed test carrying the service's error")
  void refusedSlot() {
    TestResult r = TestResult.score(test("x", EvalCase.SuccessCriteria.NONE, "B"), 5,
        Retriever.Answer.failed(new JsonObject().put("code", "COLLECTION_NOT_FOUND").put("message", "no such collection")));
    assertThat(r.passed()).isFalse();
    assertThat(r.hit()).isFalse();
    assertThat(r.toJson("now").getJsonObject("error").getString("code")).isEqualTo("COLLECTION_NOT_FOUND");
  }

  @Test
  @DisplayName("the report's means are per category and overall, and its JSON names every metric")
  void reportByCategory() {
    List<TestResult> results = List.of(
        TestResult.score(test("factual", EvalCase.SuccessCriteria.NONE, "A"), 5, answer("A", "B")),
        TestResult.score(test("factual", EvalCase.SuccessCriteria.NONE, "B"), 5, answer("A", "B")),
        TestResult.score(test("keyword", EvalCase.SuccessCriteria.NONE, "Z"), 5, answer("A", "B")));
    EvalReport report = new EvalReport("2026-11-23T09:00:00Z", "in-process", "book", 5, "hybrid", results);
    Metrics factual = report.byCategory().get("factual");
    assertThat(factual.tests()).isEqualTo(2);
    assertThat(factual.hitAt1()).isEqualTo(0.5);
    assertThat(factual.hitAtK()).isEqualTo(1.0);
    assertThat(factual.mrr()).isEqualTo(0.75);
    assertThat(report.overall().hitAtK()).isCloseTo(2.0 / 3, within(1e-9));
    JsonObject json = report.toJson();
    assertThat(json.getJsonObject("categories").fieldNames()).containsExactly("factual", "keyword");
    assertThat(json.getJsonObject("overall").fieldNames())
        .contains("hit_at_1", "hit_at_k", "mrr", "ndcg_at_k", "tests", "below_criteria");
    assertThat(json.getString("search_mode_used")).isEqualTo("hybrid");
    JsonObject test = json.getJsonArray("tests").getJsonObject(1);
    assertThat(test.getInteger("first_relevant_rank")).isEqualTo(2);
    assertThat(test.getDouble("first_relevant_score")).isEqualTo(0.8);
    assertThat(test.getString("executed_at")).isEqualTo("2026-11-23T09:00:00Z");
    assertThat(report.table()).anyMatch(l -> l.startsWith("| factual | 2 | 0.500 | 1.000 | 0.750 |"));
  }

  @Test
  @DisplayName("every request asks for the top k with threshold 0, and carries the collection and search_mode when chosen")
  void requestBody() {
    Retriever none = new Retriever() {
      public int batchSize() {
        return 1;
      }

      public io.vertx.core.Future<List<Answer>> retrieve(List<JsonObject> requests) {
        throw new UnsupportedOperationException();
      }

      public String target() {
        return "none";
      }
    };
    EvalCase t = test("x", EvalCase.SuccessCriteria.NONE, "A");
    assertThat(new Evaluator(none, new Evaluator.Options(7, "pg", "hybrid")).request(t)).isEqualTo(new JsonObject()
        .put("query", "q").put("top_k", 7).put("score_threshold", 0.0).put("collection", "pg").put("search_mode", "hybrid"));
    assertThat(new Evaluator(none, new Evaluator.Options(5, null, null)).request(t).fieldNames())
        .containsExactlyInAnyOrder("query", "top_k", "score_threshold");
  }
}
