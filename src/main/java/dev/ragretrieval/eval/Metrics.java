package dev.ragretrieval.eval;

import io.vertx.core.json.JsonObject;
import java.util.List;

/** The means over a group of tests (all of them, or one category). Refused slots count as misses. */
public record Metrics(int tests, int hitsAt1, int hitsAtK, double hitAt1, double hitAtK, double mrr, double ndcg,
    int errors, int failed) {

  public static Metrics of(List<TestResult> results) {
    int n = results.size();
    int h1 = (int) results.stream().filter(TestResult::hitAt1).count();
    int hk = (int) results.stream().filter(TestResult::hit).count();
    return new Metrics(n, h1, hk, n == 0 ? 0 : (double) h1 / n, n == 0 ? 0 : (double) hk / n,
        results.stream().mapToDouble(TestResult::reciprocalRank).average().orElse(0),
        results.stream().mapToDouble(TestResult::ndcg).average().orElse(0),
        (int) results.stream().filter(r -> r.error() != null).count(),
        (int) results.stream().filter(r -> !r.passed()).count());
  }

  public JsonObject toJson() {
    return new JsonObject()
        .put("tests", tests)
        .put("hit_at_1", TestResult.round(hitAt1))
        .put("hit_at_k", TestResult.round(hitAtK))
        .put("mrr", TestResult.round(mrr))
        .put("ndcg_at_k", TestResult.round(ndcg))
        .put("errors", errors)
        .put("below_criteria", failed);
  }
}
