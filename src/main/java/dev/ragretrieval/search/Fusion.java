package dev.ragretrieval.search;

import dev.ragretrieval.config.AppConfig;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a hybrid search fuses its dense and keyword (BM25) lists, the same on both stores: weighted
 * reciprocal rank fusion. A hit at rank r (from 1) of a list with weight w adds
 * {@code 1 / (rrfK + r / w)}; with w = 1 that is the paper's {@code 1 / (k + r)} (Cormack, Clarke
 * and Buettcher, SIGIR 2009), a weight w &gt; 1 makes the list's r-th hit count like another list's
 * (r / w)-th, and w = 0 leaves the list out. This is the formula Qdrant's {@code Rrf {k, weights}}
 * computes (lib/segment/src/common/reciprocal_rank_fusion.rs: {@code 1 / (position / w + k' - 1)},
 * position from 1), so the embedded store computes it in the same float steps and Qdrant gets
 * {@link #qdrantK()} = rrfK + 1. Each list gives {@link #candidatesFor} hits. Equal fused scores are
 * broken by the dense score (the cosine), then by point id: {@link #ORDER}.
 */
public record Fusion(int rrfK, double denseWeight, double keywordWeight, int candidates) {

  /** The settings' defaults (retrieval.fusion in config/Settings.java). */
  public static final Fusion DEFAULT = of(AppConfig.Fusion.DEFAULT);

  /** Hits each list gives per wanted hit, when that is more than {@link #candidates}. */
  public static final int CANDIDATES_PER_HIT = 4;

  /** Fused score descending, then cosine descending, then point id ascending. */
  public static final Comparator<Fused> ORDER = Comparator.comparingDouble((Fused f) -> f.fused()).reversed()
      .thenComparing(Comparator.comparingDouble((Fused f) -> f.cosine()).reversed())
      .thenComparing(Fused::id);

  public Fusion {
    if (rrfK < 1) {
      throw new IllegalArgumentException("rrf k must be at least 1");
    }
    if (denseWeight < 0 || keywordWeight < 0 || denseWeight + keywordWeight == 0) {
      throw new IllegalArgumentException("fusion weights must be >= 0 and not both 0");
    }
    if (candidates < 1) {
      throw new IllegalArgumentException("fusion candidates must be at least 1");
    }
  }

  public static Fusion of(AppConfig.Fusion config) {
    return new Fusion(config.rrfK(), config.denseWeight(), config.keywordWeight(), config.candidates());
  }

  /** Hits each list gives the fusion for a search of {@code limit} hits. */
  public int candidatesFor(int limit) {
    return Math.max(limit * CANDIDATES_PER_HIT, candidates);
  }

  /** The k to send Qdrant: its formula counts positions from 0 and adds k - 1. */
  public int qdrantK() {
    return rrfK + 1;
  }

  /** What the dense list's hit at {@code rank} (from 1) adds. */
  public float dense(int rank) {
    return contribution(rank, (float) denseWeight);
  }

  /** What the keyword list's hit at {@code rank} (from 1) adds. */
  public float keyword(int rank) {
    return contribution(rank, (float) keywordWeight);
  }

  /** In Qdrant's float steps, so both stores tie and order alike. */
  private float contribution(int rank, float weight) {
    if (weight <= 0f) {
      return 0f;
    }
    return 1f / ((float) rank / weight + (float) qdrantK() - 1f);
  }

  /**
   * The fused score of every id in either list (ranks from 1, in list order), in the order ids
   * were first seen. A list of weight 0 still brings its ids in, with nothing added, as Qdrant's do.
   */
  public Map<String, Float> scores(List<String> dense, List<String> keyword) {
    Map<String, Float> out = new LinkedHashMap<>();
    for (int i = 0; i < dense.size(); i++) {
      out.merge(dense.get(i), dense(i + 1), Float::sum);
    }
    for (int i = 0; i < keyword.size(); i++) {
      out.merge(keyword.get(i), keyword(i + 1), Float::sum);
    }
    return out;
  }

  /** One fused hit: its fused score, its cosine with the query, its point id. */
  public record Fused(String id, float fused, float cosine) {}
}
