package dev.ragretrieval.search;

import io.vertx.core.json.JsonObject;

/** A point to upsert. {@code id} is a UUID string (deterministic for ingested chunks). */
public record Point(String id, float[] vector, JsonObject payload) {}
