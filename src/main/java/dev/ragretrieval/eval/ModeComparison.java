package dev.ragretrieval.eval;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * The same tests run once per search mode against the same target, shown side by side so a team
 * can pick its default from its own questions. Each mode's report is complete on its own.
 */
public record ModeComparison(List<EvalReport> reports) {

  public ModeComparison {
    reports = List.copyOf(reports);
    if (reports.isEmpty()) {
      throw new IllegalArgumentException("no reports");
    }
  }

  /**
   * Runs the tests once per mode, one mode after the other (so the modes do not compete for the
   * target). {@code base} gives k and the collection; its search mode is replaced by each of {@code modes}.
   */
  public static Future<ModeComparison> run(Retriever retriever, Evaluator.Options base, List<String> modes,
      List<EvalCase> tests) {
    List<EvalReport> reports = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (String mode : modes) {
      Evaluator evaluator = new Evaluator(retriever, new Evaluator.Options(base.k(), base.collection(), mode));
      chain = chain.compose(v -> evaluator.run(tests)).map(report -> {
        reports.add(report);
        return null;
      });
    }
    return chain.map(v -> new ModeComparison(reports));
  }

  /** A report's column name: the mode asked for, else what the service chose. */
  public static String label(EvalReport report) {
    return report.searchMode() != null ? report.searchMode() : report.searchModeLabel();
  }

  public String header() {
    EvalReport first = reports.get(0);
    List<String> modes = reports.stream().map(r -> {
      String label = label(r);
      String used = String.join("+", r.searchModesUsed());
      return used.isEmpty() || used.equals(label) ? label : label + " (service used " + used + ")";
    }).toList();
    return String.format(Locale.ROOT, "eval: %d tests against %s, collection '%s', top %d, search modes: %s",
        first.results().size(), first.target(), first.collection(), first.k(), String.join(", ", modes));
  }

  /** One line per test: the rank of its first right result in each mode ('-' = not in the top k). */
  public List<String> lines() {
    List<String> lines = new ArrayList<>();
    List<TestResult> firstResults = reports.get(0).results();
    for (int i = 0; i < firstResults.size(); i++) {
      StringBuilder ranks = new StringBuilder();
      List<String> misses = new ArrayList<>();
      for (EvalReport report : reports) {
        TestResult r = report.results().get(i);
        String rank = r.error() != null ? "ERR" : r.hit() ? Integer.toString(r.firstRank()) : "-";
        ranks.append(String.format(Locale.ROOT, "%s %-3s ", label(report), rank));
        if (r.error() != null) {
          misses.add(label(report) + ": " + r.error().getString("code") + ": " + r.error().getString("message"));
        } else if (!r.hit()) {
          misses.add(label(report) + " top: " + r.top());
        }
      }
      EvalCase test = firstResults.get(i).test();
      String line = String.format(Locale.ROOT, "%s%-12s %-10s %s", ranks, test.category(), test.testId(), test.query());
      lines.add(misses.isEmpty() ? line : line + "  (" + String.join("; ", misses) + ")");
    }
    return lines;
  }

  /** Per category and overall, each metric with one column per mode; Markdown, ready for a README. */
  public List<String> table() {
    int k = reports.get(0).k();
    List<String> metrics = List.of("hit@1", "hit@" + k, "MRR@" + k, "nDCG@" + k);
    StringBuilder head = new StringBuilder("| category | tests |");
    StringBuilder rule = new StringBuilder("|---|---:|");
    for (String metric : metrics) {
      for (EvalReport report : reports) {
        head.append(' ').append(metric).append(' ').append(label(report)).append(" |");
        rule.append("---:|");
      }
    }
    List<String> lines = new ArrayList<>(List.of(head.toString(), rule.toString()));
    TreeSet<String> categories = new TreeSet<>();
    reports.forEach(r -> categories.addAll(r.byCategory().keySet()));
    for (String category : categories) {
      lines.add(row(category, reports.stream().map(r -> r.byCategory().get(category)).toList()));
    }
    lines.add(row("**all**", reports.stream().map(EvalReport::overall).toList()));
    return lines;
  }

  private static String row(String name, List<Metrics> perMode) {
    StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | %d |", name, perMode.get(0).tests()));
    List<ToDoubleFunction<Metrics>> metrics = List.of(Metrics::hitAt1, Metrics::hitAtK, Metrics::mrr, Metrics::ndcg);
    for (ToDoubleFunction<Metrics> metric : metrics) {
      for (Metrics m : perMode) {
        row.append(String.format(Locale.ROOT, " %.3f |", metric.applyAsDouble(m)));
      }
    }
    return row.toString();
  }

  /** One summary line per mode. */
  public List<String> summaries() {
    return reports.stream().map(r -> String.format(Locale.ROOT, "%-8s %s", label(r) + ":", r.summary())).toList();
  }

  /** {"search_modes": [...], "modes": {mode: that mode's full report}} plus what all runs share. */
  public JsonObject toJson() {
    EvalReport first = reports.get(0);
    JsonObject modes = new JsonObject();
    reports.forEach(r -> modes.put(label(r), r.toJson()));
    return new JsonObject()
        .put("executed_at", first.executedAt())
        .put("target", first.target())
        .put("collection", first.collection())
        .put("k", first.k())
        .put("search_modes", new JsonArray(reports.stream().map(ModeComparison::label).toList()))
        .put("modes", modes);
  }

}
