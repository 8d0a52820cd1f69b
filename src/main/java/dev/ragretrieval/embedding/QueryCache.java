package dev.ragretrieval.embedding;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ragretrieval.observability.RagMetrics;
import java.util.ArrayList;
import java.util.List;

/**
 * Finished query vectors (SEARCH_QUERY) by {@link QueryKey}, bounded; failures never enter it.
 * {@link EmbeddingVerticle} fills it. {@link EmbeddingClient} reads it first, so a request whose
 * every text is cached skips the event bus: its round trip (a hop to the verticle's event loop and
 * back, a reply consumer and a send-timeout timer) cost more than the rest of an embedding hit.
 *
 * <p>Each look-up counts once in {@code rag_cache_requests_total}: the client counts only the
 * requests it answers whole; a request with any miss is counted by the verticle.
 */
public final class QueryCache {

  static final String METER = "query_embedding";

  private static final QueryCache OFF = new QueryCache(null, null, null, 0);

  private final Cache<String, float[]> vectors; // null = off
  private final RagMetrics metrics;
  private final String model;
  private final int dimension;

  private QueryCache(Cache<String, float[]> vectors, RagMetrics metrics, String model, int dimension) {
    this.vectors = vectors;
    this.metrics = metrics;
    this.model = model;
    this.dimension = dimension;
  }

  /** A cache of {@code size} query vectors of {@code provider}'s model; size 0 turns it off. */
  public static QueryCache of(int size, EmbeddingProvider provider, RagMetrics metrics) {
    return size <= 0 ? OFF
        : new QueryCache(Caffeine.newBuilder().maximumSize(size)
            // upkeep (eviction) on the caller's event loop: handing it to the common pool cost a thread wake-up
            .executor(Runnable::run).build(), metrics, provider.model(), provider.dimension());
  }

  /** No cache: every look-up misses and nothing is kept or counted. */
  public static QueryCache off() {
    return OFF;
  }

  public boolean enabled() {
    return vectors != null;
  }

  /**
   * The answer for {@code texts} when every one of them is cached (and then each counts as a hit);
   * null when any is missing (and nothing is counted: the verticle counts that request).
   */
  EmbedResponse answer(List<String> texts) {
    if (vectors == null || texts.isEmpty()) {
      return null;
    }
    List<float[]> found = new ArrayList<>(texts.size());
    for (String text : texts) {
      float[] vector = vectors.getIfPresent(QueryKey.of(text));
      if (vector == null) {
        return null;
      }
      found.add(vector);
    }
    for (int i = 0; i < found.size(); i++) {
      metrics.cache(METER, true);
    }
    return new EmbedResponse(found, model, dimension);
  }

  /** The vector under {@code key} (a {@link QueryKey}), or null; counts nothing. */
  float[] get(String key) {
    return vectors == null ? null : vectors.getIfPresent(key);
  }

  void put(String key, float[] vector) {
    if (vectors != null) {
      vectors.put(key, vector);
    }
  }

  void count(boolean hit) {
    if (metrics != null) {
      metrics.cache(METER, hit);
    }
  }
}
