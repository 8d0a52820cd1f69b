package dev.ragretrieval.search;

import dev.ragretrieval.upstream.Deadline;
import java.util.List;
import java.util.Map;

/**
 * One search. {@code filter} maps a payload key to the values it may take (one value = exact
 * match, several = match any). {@code deadline} is the request's. {@code text} is the query text,
 * which a {@link SearchMode#HYBRID} search matches against the keyword index; a store whose
 * collection has no keyword index searches dense. Whatever the mode, each hit's score is the
 * cosine of {@code vector} and {@code scoreThreshold} applies to it. {@code fusion} says how a
 * hybrid search fuses its lists (null: {@link Fusion#DEFAULT}).
 */
public record SearchRequest(
    String collection,
    float[] vector,
    int limit,
    float scoreThreshold,
    Map<String, List<Object>> filter,
    Deadline deadline,
    String text,
    SearchMode mode,
    Fusion fusion) {

  public SearchRequest {
    filter = Map.copyOf(filter);
    mode = mode == null ? SearchMode.DENSE : mode;
    fusion = fusion == null ? Fusion.DEFAULT : fusion;
  }

  /** With the default fusion. */
  public SearchRequest(String collection, float[] vector, int limit, float scoreThreshold,
      Map<String, List<Object>> filter, Deadline deadline, String text, SearchMode mode) {
    this(collection, vector, limit, scoreThreshold, filter, deadline, text, mode, null);
  }

  /** A dense search. */
  public SearchRequest(String collection, float[] vector, int limit, float scoreThreshold,
      Map<String, List<Object>> filter, Deadline deadline) {
    this(collection, vector, limit, scoreThreshold, filter, deadline, null, SearchMode.DENSE, null);
  }

  /** Whether this search should fuse a keyword ranking in (it needs the query text for that). */
  public boolean wantsHybrid() {
    return mode == SearchMode.HYBRID && text != null && !text.isBlank();
  }
}
