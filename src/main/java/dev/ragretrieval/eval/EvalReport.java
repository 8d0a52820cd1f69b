package dev.ragretrieval.eval;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The outcome of one run: every test's result, the means over all tests and per category, and
 * how the run was made (target, collection, k, search mode asked for and echoed by the service).
 */
public record EvalReport(String executedAt, String target, String collection, int k, String searchMode,
    List<TestResult> results) {

  public EvalReport {
    results = List.copyOf(results);
  }

  public Metrics overall() {
    return Metrics.of(results);
  }

  /** Per test_category, by name. */
  public Map<String, Metrics> byCategory() {
    Map<String, List<TestResult>> groups = results.stream()
        .collect(Collectors.groupingBy(r -> r.test().category(), TreeMap::new, Collectors.toList()));
    Map<String, Metrics> metrics = new TreeMap<>();
    groups.forEach((category, group) -> metrics.put(category, Metrics.of(group)));
    return metrics;
  }

  /** hit@k over all tests (the contract's accuracy, compared with --min-accuracy). */
  public double accuracy() {
    return overall().hitAtK();
  }

  /** The tests that missed their own success_criteria (or were refused). */
  public List<TestResult> belowCriteria() {
    return results.stream().filter(r -> !r.passed()).toList();
  }

  /**
   * The modes the service said it used (search_params.search_mode); empty when it does not say,
   * as a service without hybrid search does not.
   */
  public Set<String> searchModesUsed() {
    Set<String> modes = new LinkedHashSet<>();
    results.forEach(r -> {
      if (r.searchMode() != null) {
        modes.add(r.searchMode());
      }
    });
    return modes;
  }

  /** The mode to print: what the service echoed, else what was asked, else the service's default. */
  public String searchModeLabel() {
    Set<String> used = searchModesUsed();
    if (!used.isEmpty()) {
      return String.join("+", used);
    }
    return searchMode == null ? "service default" : searchMode + " (requested; not echoed by the service)";
  }

  public JsonObject toJson() {
    JsonObject categories = new JsonObject();
    byCategory().forEach((category, metrics) -> categories.put(category, metrics.toJson()));
    JsonArray tests = new JsonArray();
    results.forEach(r -> tests.add(r.toJson(executedAt)));
    return new JsonObject()
        .put("executed_at", executedAt)
        .put("target", target)
        .put("collection", collection)
        .put("k", k)
        .put("search_mode_requested", searchMode)
        .put("search_mode_used", searchModesUsed().isEmpty() ? null : String.join("+", searchModesUsed()))
        .put("overall", overall().toJson())
        .put("categories", categories)
        .put("tests", tests);
  }

  /** One line per test: HIT/MISS, rank and score of the first right result, category, id, question. */
  public List<String> lines() {
    List<String> lines = new ArrayList<>();
    for (TestResult r : results) {
      String status = r.error() != null ? "ERR " : r.hit() ? "HIT " : "MISS";
      String rank = r.hit() ? String.format(Locale.ROOT, "rank %d %.3f", r.firstRank(), r.firstScore()) : "";
      String line = String.format(Locale.ROOT, "%s %-14s %-12s %-10s %s", status, rank, r.test().category(),
          r.test().testId(), r.test().query());
      if (r.error() != null) {
        line += "  (" + r.error().getString("code") + ": " + r.error().getString("message") + ")";
      } else if (!r.hit()) {
        line += "  (top: " + r.top() + ")";
      }
      if (!r.passed() && r.error() == null) {
        line += "  [below criteria: " + String.join("; ", r.failures()) + "]";
      }
      lines.add(line);
    }
    return lines;
  }

  /** The per-category table, as Markdown so it can go into a README as it is. */
  public List<String> table() {
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "| category | tests | hit@1 | hit@%d | MRR@%d | nDCG@%d |", k, k, k));
    lines.add("|---|---:|---:|---:|---:|---:|");
    byCategory().forEach((category, m) -> lines.add(row(category, m)));
    lines.add(row("**all**", overall()));
    return lines;
  }

  private static String row(String name, Metrics m) {
    return String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %.3f | %.3f |", name, m.tests(), m.hitAt1(),
        m.hitAtK(), m.mrr(), m.ndcg());
  }

  public String header() {
    return String.format(Locale.ROOT, "eval: %d tests against %s, collection '%s', top %d, search mode: %s",
        results.size(), target, collection, k, searchModeLabel());
  }

  public String summary() {
    Metrics m = overall();
    return String.format(Locale.ROOT, "hit@%d: %d/%d = %.3f   hit@1: %.3f   MRR: %.3f   nDCG@%d: %.3f", k,
        m.hitsAtK(), m.tests(), m.hitAtK(), m.hitAt1(), m.mrr(), k, m.ndcg());
  }
}
