package dev.ragretrieval.retrieval;

import dev.ragretrieval.search.SearchMode;

/**
 * How one retrieval runs, echoed in {@code search_params}: the search mode actually used, why
 * it is not the one asked for ({@code fallback}, null when it is), how the results are ordered
 * ({@code ranking}: "cosine", "rrf" or "rerank"), and the rerank model and candidate count when
 * a reranker orders them.
 */
public record SearchPlan(SearchMode mode, String fallback, String rerankModel, int candidates) {

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
