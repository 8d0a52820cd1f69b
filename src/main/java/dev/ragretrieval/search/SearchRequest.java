package dev.ragretrieval.search;

import dev.ragretrieval.upstream.Deadline;
import java.util.List;
import java.util.Map;

/**
 * One nearest-neighbour search. {@code filter} maps a payload key to the values it may take
 * (one value = exact match, several = match any). {@code deadline} is the request's.
 */
public record SearchRequest(
    String collection,
    float[] vector,
    int limit,
    float scoreThreshold,
    Map<String, List<Object>> filter,
    Deadline deadline) {

  public SearchRequest {
    filter = Map.copyOf(filter);
  }
}
