package dev.ragretrieval.search;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import dev.ragretrieval.search.qdrant.QdrantVectorStore;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/** Picks the vector store the configuration names: Qdrant when QDRANT_HOST is set. */
public final class VectorStores {

  private VectorStores() {}

  public static Future<VectorStore> create(Vertx vertx, AppConfig config, RagMetrics metrics) {
    return create(vertx, config, metrics, false);
  }

  /** {@code readOnly}: the embedded store only searches (a command beside a running server). */
  public static Future<VectorStore> create(Vertx vertx, AppConfig config, RagMetrics metrics, boolean readOnly) {
    if (config.qdrant().host().isPresent()) {
      return Future.succeededFuture(new QdrantVectorStore(vertx, config.qdrant(), metrics,
          config.retrieval().coalesceWindow()));
    }
    return Future.succeededFuture(new EmbeddedVectorStore(vertx, config.store().dataDir(), metrics, readOnly));
  }
}
