package dev.ragretrieval.search;

/** What readiness and ingestion need to know about a collection. */
public record CollectionInfo(String name, int vectorSize, long pointsCount) {}
