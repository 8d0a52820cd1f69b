package dev.ragretrieval.search;

import io.vertx.core.json.JsonObject;

/** A search hit as the store returns it: the point id as a string, its score and whole payload. */
public record ScoredPoint(String id, float score, JsonObject payload) {}
