package dev.ragretrieval.retrieval;

import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.search.SearchMode;

/**
 * How one retrieval runs, echoed in {@code search_params}: the search mode actually used, why
 * it is not the one asked for ({@code fallback}, null when it is), how the results are ordered
 * ({@code ranking}: "cosine", "rrf" or "rerank"), the rerank model and candidate count when
 * a reranker orders them, and the fusion of a hybrid search ({@code fusion}; null for dense).
 */
public record SearchPlan(SearchMode mode, String fallback, String rerankModel, int candidates, Fusion fusion) {

  public SearchPlan {
    fusion = mode == SearchMode.HYBRID ? (fusion == null ? Fusion.DEFAULT : fusion) : null;
  }

  /** A hybrid plan with the default fusion. */
  public SearchPlan(SearchMode mode, String fallback, String rerankModel, int candidates) {
    this(mode, fallback, rerankModel, candidates, null);
  }

  public boolean reranked() {
    return rerankModel != null;
  }

  public String ranking() {
    if (reranked()) {
      return "rerank";
    }
    return mode == SearchMode.HYBRID ? "rrf" : "cosine";
  }
}
