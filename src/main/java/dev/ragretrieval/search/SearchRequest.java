package dev.ragretrieval.search;

import dev.ragretrieval.upstream.Deadline;
import java.util.List;
import java.util.Map;

/**
 * One search. {@code filter} maps a payload key to the values it may take (one value = exact
 * match, several = match any). {@code deadline} is the request's. {@code text} is the query text,
 * which a {@link SearchMode#HYBRID} search matches against the keyword index; a store whose
 * collection has no keyword index searches dense. Whatever the mode, each hit's score is the
 * cosine of {@code vector} and {@code scoreThreshold} applies to it.
 */
public record SearchRequest(
    String collection,
    float[] vector,
    int limit,
    float scoreThreshold,
    Map<String, List<Object>> filter,
    Deadline deadline,
    String text,
    SearchMode mode) {

  public SearchRequest {
    filter = Map.copyOf(filter);
    mode = mode == null ? SearchMode.DENSE : mode;
  }

  /** A dense search. */
  public SearchRequest(String collection, float[] vector, int limit, float scoreThreshold,
      Map<String, List<Object>> filter, Deadline deadline) {
    this(collection, vector, limit, scoreThreshold, filter, deadline, null, SearchMode.DENSE);
  }

  /** Whether this search should fuse a keyword ranking in (it needs the query text for that). */
  public boolean wantsHybrid() {
    return mode == SearchMode.HYBRID && text != null && !text.isBlank();
  }
}
