package dev.ragretrieval.search;

import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import java.util.Collection;
import java.util.List;

/**
 * The vector store, with the same semantics whether it is Qdrant over gRPC or the embedded
 * Lucene store. Every failure is a {@link dev.ragretrieval.error.ServiceException}; a missing
 * collection is {@code COLLECTION_NOT_FOUND}.
 */
public interface VectorStore {

  /** Nearest points by cosine similarity, best first, at most {@code limit}, none below the threshold. */
  Future<List<ScoredPoint>> search(SearchRequest request);

  /** Several searches in one round trip; results in request order. */
  Future<List<List<ScoredPoint>>> searchBatch(List<SearchRequest> requests);

  /** Fails with COLLECTION_NOT_FOUND when it does not exist. */
  Future<CollectionInfo> collectionInfo(String collection);

  /** Creates a cosine collection of the given vector size with payload indexes on the filter keys. */
  Future<Void> createCollection(String collection, int vectorSize, List<String> indexedKeys);

  /** Deletes the collection; succeeds when it did not exist. */
  Future<Void> deleteCollection(String collection);

  /** Inserts or replaces points by id and returns once they are searchable. */
  Future<Void> upsert(String collection, List<Point> points);

  /** Removes the points whose payload source_url equals {@code sourceUrl} except those in keepIds. */
  Future<Void> deleteStale(String collection, String sourceUrl, Collection<String> keepIds);

  /** Distinct values of a payload key with counts, most frequent first. */
  Future<List<FacetCount>> facet(String collection, String key, int limit, Deadline deadline);

  Future<Void> close();
}
