package dev.ragretrieval.rerank;

/** One reranked document: its index in the list sent and the reranker's relevance score. */
public record RerankHit(int index, double relevanceScore) {}
