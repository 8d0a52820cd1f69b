package dev.ragretrieval.rerank;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Vertx;
import java.util.Optional;

/** The reranker the configuration asks for: none by default, Cohere Rerank with RERANK_PROVIDER=cohere. */
public final class Rerankers {

  private Rerankers() {}

  public static Optional<Reranker> create(Vertx vertx, AppConfig config, RagMetrics metrics) {
    AppConfig.Rerank rerank = config.retrieval().rerank();
    if (!rerank.enabled()) {
      return Optional.empty();
    }
    return Optional.of(new CohereReranker(vertx, config.embedding(), rerank, metrics));
  }
}
