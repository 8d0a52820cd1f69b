package dev.ragretrieval.embedding;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.cohere.CohereProvider;
import dev.ragretrieval.embedding.local.LocalOnnxProvider;
import dev.ragretrieval.embedding.openai.OpenAiProvider;
import io.vertx.core.Vertx;

/** Builds the provider the configuration names (EMBEDDING_PROVIDER; auto is resolved by the loader). */
public final class EmbeddingProviders {

  private EmbeddingProviders() {}

  public static EmbeddingProvider create(Vertx vertx, AppConfig.Embedding config) {
    return switch (config.provider()) {
      case COHERE -> new CohereProvider(vertx, config);
      case OPENAI -> new OpenAiProvider(vertx, config);
      case LOCAL -> new LocalOnnxProvider(vertx, config.local());
    };
  }
}
