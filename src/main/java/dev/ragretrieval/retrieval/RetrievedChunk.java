package dev.ragretrieval.retrieval;

import io.vertx.core.json.JsonObject;

/**
 * One result: the mapped payload fields (null when absent), the score (cosine) and the whole
 * payload; {@code relevanceScore} is the reranker's, null when no reranker ordered the results.
 */
public record RetrievedChunk(
    int rank,
    String id,
    String chunkId,
    String text,
    double score,
    String sourceUrl,
    String pageTitle,
    String chapter,
    String section,
    Integer chunkIndex,
    JsonObject metadata,
    boolean truncated,
    Double relevanceScore) {

  public RetrievedChunk(int rank, String id, String chunkId, String text, double score, String sourceUrl,
      String pageTitle, String chapter, String section, Integer chunkIndex, JsonObject metadata, boolean truncated) {
    this(rank, id, chunkId, text, score, sourceUrl, pageTitle, chapter, section, chunkIndex, metadata, truncated, null);
  }

  /** This chunk at another rank, with a reranker's relevance score. */
  public RetrievedChunk reranked(int newRank, double relevance) {
    return new RetrievedChunk(newRank, id, chunkId, text, score, sourceUrl, pageTitle, chapter, section, chunkIndex,
        metadata, truncated, relevance);
  }
}
