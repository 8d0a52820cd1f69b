package dev.ragretrieval.retrieval;

import java.util.List;

/** The answer to one retrieve request (docs/API.md section 4). */
public record RetrievalResult(
    String queryId,
    String query,
    String collection,
    String embeddingModel,
    Status status,
    List<RetrievedChunk> results,
    RetrievalRequest request,
    double executionTimeMs,
    double embedMs,
    double searchMs) {

  public enum Status {
    SUCCESS, PARTIAL, NO_RESULTS;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Status of(int count, int topK) {
      return count == 0 ? NO_RESULTS : count >= topK ? SUCCESS : PARTIAL;
    }
  }

  public int count() {
    return results.size();
  }
}
