package dev.ragretrieval.app;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingLanes;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.embedding.EmbeddingVerticle;
import dev.ragretrieval.embedding.QueryCache;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.rerank.Reranker;
import dev.ragretrieval.rerank.Rerankers;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.search.VectorStores;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the one place the running parts are built, in one order (configuration
 * and metrics in; embedding provider and its verticle; vector store; reranker; retrieval service), for
 * {@code serve} ({@link Application}) and every CLI verb alike. The Vertx instance, the config and
 * the metrics stay the caller's.
 */
public final class Components {

  private static final Logger LOG = LoggerFactory.getLogger(Components.class);

  private final Vertx vertx;
  private final AppConfig config;
  private final RagMetrics metrics;
  private EmbeddingProvider provider;
  private String embeddingDeployment;
  private QueryCache queryCache;
  private final EmbeddingLanes lanes = EmbeddingLanes.create();
  private EmbeddingClient embeddings;
  private VectorStore store;
  private Optional<Reranker> reranker = Optional.empty();
  private RetrievalService retrieval;

  private Components(Vertx vertx, AppConfig config, RagMetrics metrics) {
    this.vertx = vertx;
    this.config = config;
    this.metrics = metrics;
  }

  /** Builds and starts every part; on failure whatever did start is closed again. */
  public static Future<Components> start(Vertx vertx, AppConfig config, RagMetrics metrics) {
    Components parts = new Components(vertx, config, metrics);
    return parts.startEmbedding()
        .compose(v -> parts.startStore())
        .map(v -> {
          parts.reranker = Rerankers.create(vertx, config, metrics);
          parts.reranker.ifPresent(r -> LOG.info("rerank: {} over the first {}x top_k candidates", r.model(),
              config.retrieval().rerank().candidatesPerResult()));
          parts.retrieval = new RetrievalService(parts.embeddings, parts.store, config, parts.reranker, metrics);
          return parts;
        })
        .recover(failure -> parts.close().transform(closed -> Future.failedFuture(failure)));
  }

  public AppConfig config() {
    return config;
  }

  public RagMetrics metrics() {
    return metrics;
  }

  public EmbeddingProvider provider() {
    return provider;
  }

  public EmbeddingClient embeddings() {
    return embeddings;
  }

  public VectorStore store() {
    return store;
  }

  public RetrievalService retrieval() {
    return retrieval;
  }

  /** Undeploys the embedding verticle, then closes the store and the provider; each step runs whatever the one before did. */
  public Future<Void> close() {
    Future<Void> undeployed = embeddingDeployment == null ? Future.succeededFuture()
        : quietly("undeploying the embedding verticle", () -> vertx.undeploy(embeddingDeployment));
    return undeployed
        .compose(v -> reranker.isEmpty() ? Future.succeededFuture() : quietly("closing the reranker", reranker.get()::close))
        .compose(v -> store == null ? Future.succeededFuture() : quietly("closing the vector store", store::close))
        .compose(v -> provider == null ? Future.succeededFuture()
            : quietly("closing the embedding provider", provider::close));
  }

  private Future<Void> startEmbedding() {
    // building a provider is cheap (the local model loads on its own worker pool: for the server in
    // Application.warmUpEmbedder, else at the first call); map turns a configuration error thrown here
    // into a failed start
    return Future.succeededFuture().map(v -> EmbeddingProviders.create(vertx, config.embedding(), metrics))
        .compose(created -> {
          provider = created;
          queryCache = QueryCache.of(config.embedding().queryCacheSize(), created, metrics);
          // one verticle per event loop: a request's embedding stays on the loop that serves it
          return EmbeddingVerticle.deployPerEventLoop(vertx, created, queryCache, lanes);
        })
        .map(id -> {
          embeddingDeployment = id;
          // the questions of a loop's window go to its verticle in one event-bus request
          embeddings = new EmbeddingClient(vertx, queryCache, lanes, config.retrieval().coalesceWindow());
          LOG.info("embedding with {} ({}, {} dimensions)", config.embedding().provider(),
              config.embedding().modelName(), config.embedding().dimension());
          return null;
        });
  }

  private Future<Void> startStore() {
    return VectorStores.create(vertx, config, metrics).map(created -> {
      store = created;
      if (config.qdrant().embedded()) {
        LOG.info("vector store: embedded (Lucene) under {}, collection {}", config.store().dataDir(),
            config.qdrant().collection());
      } else {
        LOG.info("vector store: {}", config.qdrant());
      }
      return null;
    });
  }

  /** One closing step: its failure (returned or thrown) is logged and does not stop the next step. */
  static Future<Void> quietly(String step, Supplier<Future<Void>> action) {
    Future<Void> done;
    try {
      done = action.get();
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    return done.recover(failure -> {
      LOG.warn("{} failed: {}", step, failure.getMessage());
      return Future.succeededFuture();
    });
  }
}
