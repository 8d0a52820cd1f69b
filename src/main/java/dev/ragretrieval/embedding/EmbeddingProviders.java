package dev.ragretrieval.embedding;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.cohere.CohereProvider;
import dev.ragretrieval.embedding.local.LocalOnnxProvider;
import dev.ragretrieval.embedding.openai.OpenAiProvider;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Vertx;

/** Builds the provider the configuration names (EMBEDDING_PROVIDER; auto is resolved by the loader). */
public final class EmbeddingProviders {

  private EmbeddingProviders() {}

  public static EmbeddingProvider create(Vertx vertx, AppConfig.Embedding config, RagMetrics metrics) {
    return switch (config.provider()) {
      case COHERE -> new CohereProvider(vertx, config, metrics);
      case OPENAI -> new OpenAiProvider(vertx, config, metrics);
      case LOCAL -> new LocalOnnxProvider(vertx, config, metrics);
    };
  }
}
