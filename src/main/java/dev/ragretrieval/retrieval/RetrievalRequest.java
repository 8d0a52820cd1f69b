package dev.ragretrieval.retrieval;

import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * A validated retrieve request (aliases resolved, defaults applied). {@code filterEcho} is the
 * filter as the client sent it, {@code filter} the same as key -> allowed values.
 */
public record RetrievalRequest(
    String query,
    int topK,
    double scoreThreshold,
    JsonObject filterEcho,
    Map<String, List<Object>> filter,
    String collection,
    boolean includeContext,
    int maxContextChars) {}
