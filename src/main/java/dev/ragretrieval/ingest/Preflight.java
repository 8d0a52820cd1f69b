package dev.ragretrieval.ingest;

import dev.ragretrieval.search.CollectionName;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbedResponse;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The checks an ingest runs before it fetches or embeds anything, cheapest first: the collection
 * name, the store (reachable, and writable now), the embedder (one tiny call, whose vector size
 * must fit an existing collection). Each failure says what is wrong and where.
 */
public final class Preflight {

  private static final Duration EMBED_CHECK = Duration.ofSeconds(60);

  private Preflight() {}

  /** Why {@code collection} cannot be a collection of this store, if it cannot. */
  public static Optional<String> invalidName(String collection, boolean embedded) {
    return CollectionName.problem(collection, embedded);
  }

  /**
   * Runs every check; fails with the first problem found. With {@code recreate} the collection is
   * dropped first, so its vector size does not matter. Answers the embedder's check response: its
   * model and vector size go into the ingest's content hashes.
   */
  public static Future<EmbedResponse> check(AppConfig.Qdrant qdrant, VectorStore store, Embedder embedder, String collection,
      boolean recreate) {
    Optional<String> badName = invalidName(collection, qdrant.embedded());
    if (badName.isPresent()) {
      return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, badName.get()));
    }
    return existing(qdrant, store, collection)
        .compose(info -> store.checkWritable(collection).map(info))
        .compose(info -> embedderAnswers(embedder, collection, recreate ? Optional.empty() : info));
  }

  /** The collection's description, empty when it does not exist yet; any other failure names the store. */
  private static Future<Optional<CollectionInfo>> existing(AppConfig.Qdrant qdrant, VectorStore store,
      String collection) {
    return store.collectionInfo(collection, Deadline.in(EMBED_CHECK)).map(Optional::of).recover(err -> {
      ServiceException error = ServiceException.from(err);
      if (error.code() == ErrorCode.COLLECTION_NOT_FOUND) {
        return Future.succeededFuture(Optional.empty());
      }
      return Future.failedFuture(new ServiceException(error.code(), where(qdrant) + ": " + error.getMessage()));
    });
  }

  private static String where(AppConfig.Qdrant qdrant) {
    return qdrant.host()
        .map(host -> "the vector store Qdrant at " + host + ":" + qdrant.grpcPort()
            + " (QDRANT_HOST, QDRANT_GRPC_PORT) cannot be used")
        .orElse("the embedded vector store cannot be used");
  }

  private static Future<EmbedResponse> embedderAnswers(Embedder embedder, String collection, Optional<CollectionInfo> info) {
    return embedder.embed(List.of("ingest check"), InputType.SEARCH_DOCUMENT, Deadline.in(EMBED_CHECK))
        .recover(err -> {
          ServiceException error = ServiceException.from(err);
          return Future.failedFuture(new ServiceException(error.code(),
              "the embedding provider does not answer: " + error.getMessage()));
        })
        .compose(response -> {
          int size = response.dimension() > 0 ? response.dimension()
              : response.vectors().isEmpty() ? 0 : response.vectors().get(0).length;
          if (info.isPresent() && info.get().vectorSize() != size) {
            return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "collection '" + collection
                + "' holds vectors of size " + info.get().vectorSize() + " but the embedding model gives " + size
                + " (use --recreate or another collection)"));
          }
          return Future.succeededFuture(response);
        });
  }
}
