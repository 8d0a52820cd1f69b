package dev.ragretrieval.eval;

import java.util.List;
import java.util.Locale;

/** The outcome of an evaluation: per case the rank of the first right result (0 = none in the top k). */
public record EvalReport(int k, List<Outcome> outcomes) {

  public record Outcome(EvalCase testCase, int rank, String top) {
    public boolean hit() {
      return rank > 0;
    }
  }

  public EvalReport {
    outcomes = List.copyOf(outcomes);
  }

  /** hit@k: the share of questions with a right result among the first k. */
  public double accuracy() {
    return outcomes.isEmpty() ? 0 : (double) outcomes.stream().filter(Outcome::hit).count() / outcomes.size();
  }

  public double hitAt1() {
    return outcomes.isEmpty() ? 0 : (double) outcomes.stream().filter(o -> o.rank() == 1).count() / outcomes.size();
  }

  /** Mean reciprocal rank of the first right result. */
  public double mrr() {
    return outcomes.stream().mapToDouble(o -> o.hit() ? 1.0 / o.rank() : 0).average().orElse(0);
  }

  public List<String> lines() {
    return outcomes.stream().map(o -> String.format(Locale.ROOT, "%s  %-7s %s%s",
        o.hit() ? "HIT " : "MISS", o.hit() ? "rank " + o.rank() : "", o.testCase().query(),
        o.hit() ? "" : "  (top: " + o.top() + ")")).toList();
  }

  public String summary() {
    long hits = outcomes.stream().filter(Outcome::hit).count();
    return String.format(Locale.ROOT, "hit@%d: %d/%d = %.3f   hit@1: %.3f   MRR: %.3f",
        k, hits, outcomes.size(), accuracy(), hitAt1(), mrr());
  }
}
