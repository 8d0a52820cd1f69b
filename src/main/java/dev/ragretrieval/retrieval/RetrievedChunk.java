package dev.ragretrieval.retrieval;

import io.vertx.core.json.JsonObject;

/** One result: the mapped payload fields (null when absent), the score and the whole payload. */
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
    boolean truncated) {}
