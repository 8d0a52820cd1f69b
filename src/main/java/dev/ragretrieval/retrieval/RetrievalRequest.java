package dev.ragretrieval.retrieval;

import dev.ragretrieval.search.SearchMode;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * A validated retrieve request (aliases resolved, defaults applied). {@code filterEcho} is the
 * filter as the client sent it, {@code filter} the same as key -> allowed values.
 * {@code searchMode} is the mode the client asked for (null = the service's default);
 * {@code plan} is how the search will really run, known once the collection has been asked
 * ({@link RetrievalService#plan}); null before.
 */
public record RetrievalRequest(
    String query,
    int topK,
    double scoreThreshold,
    JsonObject filterEcho,
    Map<String, List<Object>> filter,
    String collection,
    boolean includeContext,
    int maxContextChars,
    SearchMode searchMode,
    SearchPlan plan) {

  /** The service's default search mode, not yet planned. */
  public RetrievalRequest(String query, int topK, double scoreThreshold, JsonObject filterEcho,
      Map<String, List<Object>> filter, String collection, boolean includeContext, int maxContextChars) {
    this(query, topK, scoreThreshold, filterEcho, filter, collection, includeContext, maxContextChars, null, null);
  }

  public RetrievalRequest withPlan(SearchPlan plan) {
    return new RetrievalRequest(query, topK, scoreThreshold, filterEcho, filter, collection, includeContext,
        maxContextChars, searchMode, plan);
  }
}
