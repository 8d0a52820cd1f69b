package dev.ragretrieval.eval;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The outcome of one test: where its first right result ranked (0 = not in the top k) with that
 * result's score, nDCG@k, the share of its expected results found, and whether it met its own
 * success criteria. A slot the service refused carries the error instead.
 */
public record TestResult(EvalCase test, int k, int firstRank, Double firstScore, double ndcg, double found,
    String top, String searchMode, JsonObject error, List<String> failures) {

  public TestResult {
    failures = List.copyOf(failures);
  }

  /**
   * Scores one answer. Relevance is binary and each expected result counts once (a section that
   * fills three of the top k is one right answer, not three), so nDCG@k = DCG / ideal DCG with
   * min(k, expected count) right answers at the top.
   */
  public static TestResult score(EvalCase test, int k, Retriever.Answer answer) {
    if (answer.error() != null) {
      String reason = answer.error().getString("code", "ERROR") + ": " + answer.error().getString("message", "");
      return new TestResult(test, k, 0, null, 0, 0, null, null, answer.error(), List.of("failed: " + reason));
    }
    JsonArray results = answer.result().getJsonArray("results", new JsonArray());
    Set<Integer> credited = new HashSet<>();
    int firstRank = 0;
    Double firstScore = null;
    double dcg = 0;
    int limit = Math.min(k, results.size());
    for (int i = 0; i < limit; i++) {
      JsonObject chunk = results.getJsonObject(i);
      for (int e = 0; e < test.expected().size(); e++) {
        if (!test.expected().get(e).matches(chunk)) {
          continue;
        }
        if (firstRank == 0) {
          firstRank = i + 1;
          firstScore = chunk.getDouble("score");
        }
        if (credited.add(e)) {
          dcg += 1 / log2(i + 2);
          break;
        }
      }
    }
    double ideal = 0;
    for (int i = 0; i < Math.min(k, test.expected().size()); i++) {
      ideal += 1 / log2(i + 2);
    }
    double found = (double) credited.size() / test.expected().size();
    String top = results.isEmpty() ? "nothing" : describe(results.getJsonObject(0));
    JsonObject params = answer.result().getJsonObject("search_params");
    String mode = params == null ? null : params.getString("search_mode");
    return new TestResult(test, k, firstRank, firstScore, ideal == 0 ? 0 : dcg / ideal, found, top, mode, null,
        failures(test.criteria(), found, firstScore));
  }

  private static List<String> failures(EvalCase.SuccessCriteria criteria, double found, Double firstScore) {
    List<String> failures = new ArrayList<>();
    if (criteria.minAccuracy() != null && found < criteria.minAccuracy()) {
      failures.add(String.format(Locale.ROOT, "found %.2f of its expected results, min_accuracy %.2f",
          found, criteria.minAccuracy()));
    }
    if (criteria.minSimilarityScore() != null && (firstScore == null || firstScore < criteria.minSimilarityScore())) {
      failures.add(firstScore == null
          ? "no right result, min_similarity_score " + fmt(criteria.minSimilarityScore())
          : "first right result scored " + fmt(firstScore) + ", min_similarity_score " + fmt(criteria.minSimilarityScore()));
    }
    return failures;
  }

  public boolean hit() {
    return firstRank > 0;
  }

  public boolean hitAt1() {
    return firstRank == 1;
  }

  public double reciprocalRank() {
    return firstRank == 0 ? 0 : 1.0 / firstRank;
  }

  public boolean passed() {
    return failures.isEmpty();
  }

  public JsonObject toJson(String executedAt) {
    JsonArray expected = new JsonArray();
    test.expected().forEach(e -> expected.add(e.toJson()));
    JsonObject criteria = new JsonObject();
    if (test.criteria().minAccuracy() != null) {
      criteria.put("min_accuracy", test.criteria().minAccuracy());
    }
    if (test.criteria().minSimilarityScore() != null) {
      criteria.put("min_similarity_score", test.criteria().minSimilarityScore());
    }
    JsonObject json = new JsonObject()
        .put("test_id", test.testId())
        .put("query_text", test.query())
        .put("test_category", test.category())
        .put("expected_results", expected)
        .put("success_criteria", criteria)
        .put("executed_at", executedAt)
        .put("hit_at_1", hitAt1())
        .put("hit_at_k", hit())
        .put("reciprocal_rank", round(reciprocalRank()))
        .put("ndcg_at_k", round(ndcg))
        .put("accuracy", round(found))
        .put("first_relevant_rank", firstRank == 0 ? null : firstRank)
        .put("first_relevant_score", firstScore == null ? null : round(firstScore))
        .put("top_result", top)
        .put("search_mode", searchMode)
        .put("passed", passed())
        .put("failures", new JsonArray(failures));
    if (error != null) {
      json.put("error", error);
    }
    return json;
  }

  static double round(double value) {
    return Math.round(value * 10_000) / 10_000.0;
  }

  private static String fmt(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }

  private static String describe(JsonObject chunk) {
    String section = chunk.getString("section");
    return chunk.getString("source_url") + (section == null ? "" : " > " + section);
  }
}
