package dev.ragretrieval.retrieval;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ragretrieval.embedding.QueryKey;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.SearchMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ranked chunks of recent questions, for a short time (RAG_RESULT_CACHE_TTL_MS): a chatbot's
 * users ask the same question again and again, and each repeat otherwise costs a search. The key
 * holds everything that changes the answer; a hit skips the embedding and the search, and the
 * answer is built anew around the chunks (its own query_id and timings). Only repeated questions
 * are kept ({@link RetrievalService#retrieve}): from its second asking on, a question is answered here.
 *
 * <p>The trade-off: for up to the TTL after an ingest, a repeated question may get the chunks it
 * got before the ingest. Writes of this process ({@link #forgetAll}) end that at once; a search that
 * started before such a write does not store its answer.
 *
 * <p>Bounded by the text it holds ({@link #MAX_TEXT_CHARS}), not by entries: one answer can
 * carry 100 chunks of 10,000 characters.
 */
final class ResultCache {

  static final String METER = "retrieval_result";
  /**
   * 20 million characters of chunk text: with each answer's JSON (the text twice, see
   * {@link EncodedChunks}) well under 100 MB. At a TTL of seconds it is seldom reached.
   */
  static final long MAX_TEXT_CHARS = 20_000_000L;

  private static final ResultCache OFF = new ResultCache(null, null);

  /** Everything a retrieval's chunks depend on. {@code query} is normalised only where the answer depends on the vector alone. */
  record Key(String collection, String query, int topK, double scoreThreshold, Map<String, List<Object>> filter,
      SearchPlan plan) {}

  private final Cache<Key, EncodedChunks> answers; // null = off
  private final RagMetrics metrics;
  /** Bumped by every write of this process: answers of searches begun before it are not kept. */
  private final AtomicLong generation = new AtomicLong();

  private ResultCache(Cache<Key, EncodedChunks> answers, RagMetrics metrics) {
    this.answers = answers;
    this.metrics = metrics;
  }

  /** Answers kept for {@code ttl}; zero turns the cache off. */
  static ResultCache of(Duration ttl, RagMetrics metrics) {
    if (ttl.isZero() || ttl.isNegative()) {
      return OFF;
    }
    return new ResultCache(Caffeine.newBuilder()
        .expireAfterWrite(ttl)
        .maximumWeight(MAX_TEXT_CHARS)
        .weigher((Key key, EncodedChunks chunks) -> weight(chunks))
        // upkeep (expiry, eviction) on the caller's event loop, not handed to the common pool
        .executor(Runnable::run)
        .build(), metrics);
  }

  boolean enabled() {
    return answers != null;
  }

  /**
   * The key of a planned request. A dense search without a reranker depends on the query only
   * through its vector, which is cached by {@link QueryKey}, so the key is too; BM25 and a
   * reranker read the text itself, so there the text is the key as sent.
   */
  static Key key(RetrievalRequest planned) {
    SearchPlan plan = planned.plan();
    String query = plan.mode() == SearchMode.DENSE && !plan.reranked() ? QueryKey.of(planned.query()) : planned.query();
    return new Key(planned.collection(), query, planned.topK(), planned.scoreThreshold(), planned.filter(), plan);
  }

  /** The chunks answered for {@code key} within the TTL, or null; counts the look-up. */
  List<RetrievedChunk> get(Key key) {
    EncodedChunks found = answers.getIfPresent(key);
    metrics.cache(METER, found != null);
    return found;
  }

  /** The current write generation: take it before the search, hand it to {@link #put}. */
  long generation() {
    return generation.get();
  }

  /** Keeps {@code chunks} unless this process wrote to the store since {@code searchedAt}. */
  void put(Key key, long searchedAt, List<RetrievedChunk> chunks) {
    if (generation.get() == searchedAt) {
      answers.put(key, new EncodedChunks(chunks));
      // a write that came between the check and the put
      if (generation.get() != searchedAt) {
        answers.invalidate(key);
      }
    }
  }

  /** This process wrote to the store: no answer from before counts any more. */
  void forgetAll() {
    generation.incrementAndGet();
    if (answers != null) {
      answers.invalidateAll();
    }
  }

  private static int weight(List<RetrievedChunk> chunks) {
    long chars = 1;
    for (RetrievedChunk chunk : chunks) {
      chars += chunk.text() == null ? 0 : chunk.text().length();
    }
    return (int) Math.min(Integer.MAX_VALUE, chars);
  }
}
