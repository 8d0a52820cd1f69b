package dev.ragretrieval.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reciprocal rank fusion (Cormack, Clarke and Buettcher, SIGIR 2009): each list adds
 * {@code 1 / (k + rank)} (rank from 1) to an id's fused score; only the order of each list counts.
 * The embedded store fuses with it; Qdrant fuses server-side with its own k.
 */
public final class Rrf {

  /** The paper's k, also what the measurement used. */
  public static final int DEFAULT_K = 60;

  private Rrf() {}

  /** Ids by fused score, best first; ties keep the order in which ids were first seen. */
  public static List<String> fuse(List<List<String>> rankings, int k) {
    Map<String, Double> scores = new LinkedHashMap<>();
    for (List<String> ranking : rankings) {
      for (int i = 0; i < ranking.size(); i++) {
        scores.merge(ranking.get(i), 1.0 / (k + i + 1), Double::sum);
      }
    }
    List<Map.Entry<String, Double>> entries = new ArrayList<>(scores.entrySet());
    entries.sort(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()));
    return entries.stream().map(Map.Entry::getKey).toList();
  }
}
