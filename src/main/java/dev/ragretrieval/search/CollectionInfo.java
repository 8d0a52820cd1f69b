package dev.ragretrieval.search;

/**
 * What readiness, ingestion and {@code GET /v1/collections} need to know about a collection.
 * {@code hybrid}: it also holds a keyword (BM25) index, so hybrid search can run on it.
 */
public record CollectionInfo(String name, int vectorSize, long pointsCount, boolean hybrid) {}
