package dev.ragretrieval.ingest;

import io.vertx.core.json.JsonObject;

/**
 * One chunk ready to embed and store. {@code embedText} adds the page title and section to the
 * text, so a question naming a section finds it; the stored {@code text} stays the page's own.
 */
public record Chunk(String pointId, int chunkIndex, String embedText, JsonObject payload) {}
