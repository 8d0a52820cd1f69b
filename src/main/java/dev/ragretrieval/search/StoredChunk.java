package dev.ragretrieval.search;

import io.vertx.core.json.JsonObject;

/**
 * A point as an ingest reads it back before deciding what to embed: its id and the few payload
 * fields it asked for (those the point has).
 */
public record StoredChunk(String id, JsonObject fields) {}
