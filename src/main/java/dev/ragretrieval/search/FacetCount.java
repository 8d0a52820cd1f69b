package dev.ragretrieval.search;

/** One distinct value of a payload key and how many points carry it. */
public record FacetCount(Object value, long count) {}
