package dev.ragretrieval.search;

import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * The vector store, with the same semantics whether it is Qdrant over gRPC or the embedded
 * Lucene store. Every failure is a {@link dev.ragretrieval.error.ServiceException}; a missing
 * collection is {@code COLLECTION_NOT_FOUND}.
 */
public interface VectorStore {

  /** The payload key naming the folder or sitemap a point was ingested from. */
  String INGEST_SOURCE = "ingest_source";

  /**
   * Nearest points by cosine similarity, best first, at most {@code limit}, none below the threshold.
   * A {@link SearchMode#HYBRID} request on a collection with a keyword index is ranked by the
   * request's {@link Fusion} of the dense and the keyword lists instead; scores stay the cosine.
   */
  Future<List<ScoredPoint>> search(SearchRequest request);

  /** Several searches in one round trip; results in request order. */
  Future<List<List<ScoredPoint>>> searchBatch(List<SearchRequest> requests);

  /**
   * Whether the collection has the keyword (BM25) index hybrid search needs. Fails with
   * COLLECTION_NOT_FOUND when it does not exist. Stores cache it where asking costs a call.
   */
  default Future<Boolean> hybrid(String collection, Deadline deadline) {
    return collectionInfo(collection, deadline).map(CollectionInfo::hybrid);
  }

  /** Fails with COLLECTION_NOT_FOUND when it does not exist. */
  Future<CollectionInfo> collectionInfo(String collection, Deadline deadline);

  /** Every collection in the store, sorted by name (GET /v1/collections). */
  Future<List<CollectionInfo>> collections(Deadline deadline);

  /**
   * How long an administrative call (collection management, writes) may take when its caller
   * gives no deadline of its own: the overloads without one use it.
   */
  Duration ADMIN_TIMEOUT = Duration.ofMinutes(2);

  /**
   * Creates a cosine collection of the given vector size with payload indexes on the filter keys,
   * and a keyword (BM25) index over each point's {@link KeywordText}.
   */
  Future<Void> createCollection(String collection, int vectorSize, List<String> indexedKeys, Deadline deadline);

  /**
   * The same, told the average length in tokens ({@link KeywordAnalysis}) of the keyword texts
   * about to be written (0: not measured). Qdrant weighs each point's BM25 terms with it when the
   * point is written, so the store keeps it with the collection; the embedded store measures its
   * own and ignores it.
   */
  default Future<Void> createCollection(String collection, int vectorSize, List<String> indexedKeys,
      double keywordAvgLen, Deadline deadline) {
    return createCollection(collection, vectorSize, indexedKeys, deadline);
  }

  default Future<Void> createCollection(String collection, int vectorSize, List<String> indexedKeys) {
    return createCollection(collection, vectorSize, indexedKeys, Deadline.in(ADMIN_TIMEOUT));
  }

  /** Deletes the collection; succeeds when it did not exist. */
  Future<Void> deleteCollection(String collection, Deadline deadline);

  default Future<Void> deleteCollection(String collection) {
    return deleteCollection(collection, Deadline.in(ADMIN_TIMEOUT));
  }

  /** Inserts or replaces points by id and returns once they are searchable. */
  Future<Void> upsert(String collection, List<Point> points, Deadline deadline);

  default Future<Void> upsert(String collection, List<Point> points) {
    return upsert(collection, points, Deadline.in(ADMIN_TIMEOUT));
  }

  /** Removes the points whose payload source_url equals {@code sourceUrl} except those in keepIds. */
  Future<Void> deleteStale(String collection, String sourceUrl, Collection<String> keepIds, Deadline deadline);

  default Future<Void> deleteStale(String collection, String sourceUrl, Collection<String> keepIds) {
    return deleteStale(collection, sourceUrl, keepIds, Deadline.in(ADMIN_TIMEOUT));
  }

  /**
   * Mirrors a source: removes every point whose payload {@value #INGEST_SOURCE} is {@code source} and
   * whose source_url is not in {@code keepSourceUrls}. Answers each removed source_url with the
   * number of its points that went. A missing collection is COLLECTION_NOT_FOUND.
   */
  default Future<List<FacetCount>> deleteMissing(String collection, String source, Collection<String> keepSourceUrls,
      Deadline deadline) {
    return Future.failedFuture(new dev.ragretrieval.error.ServiceException(dev.ragretrieval.error.ErrorCode.UPSTREAM_ERROR,
        "this vector store cannot remove missing documents"));
  }

  default Future<List<FacetCount>> deleteMissing(String collection, String source, Collection<String> keepSourceUrls) {
    return deleteMissing(collection, source, keepSourceUrls, Deadline.in(ADMIN_TIMEOUT));
  }

  /**
   * The points whose payload source_url is one of {@code sourceUrls}, each with only the payload
   * keys {@code keys}: what an ingest compares its chunks with before it embeds them. Reads every
   * matching point (paging through them where the store pages). A missing collection is
   * COLLECTION_NOT_FOUND.
   */
  default Future<List<StoredChunk>> storedChunks(String collection, Collection<String> sourceUrls, List<String> keys,
      Deadline deadline) {
    return Future.failedFuture(new dev.ragretrieval.error.ServiceException(dev.ragretrieval.error.ErrorCode.UPSTREAM_ERROR,
        "this vector store cannot read stored chunks back"));
  }

  /**
   * Succeeds when a write to {@code collection} could start now (before an ingest does any work);
   * fails with a reason and what to do. Stores without such a check succeed.
   */
  default Future<Void> checkWritable(String collection, Deadline deadline) {
    return Future.succeededFuture();
  }

  default Future<Void> checkWritable(String collection) {
    return checkWritable(collection, Deadline.in(ADMIN_TIMEOUT));
  }

  /** Distinct values of a payload key with counts, most frequent first. */
  Future<List<FacetCount>> facet(String collection, String key, int limit, Deadline deadline);

  Future<Void> close();
}
