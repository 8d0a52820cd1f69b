package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.AppConfig.Cohere;
import dev.ragretrieval.config.AppConfig.Local;
import dev.ragretrieval.config.AppConfig.OpenAi;
import dev.ragretrieval.config.AppConfig.Provider;
import java.time.Duration;
import java.util.Optional;

/** Embedding configurations pointing at a local test server, with short backoffs. */
public final class EmbeddingTestConfigs {

  public static final String COHERE_MODEL = "embed-english-v3.0";
  public static final String OPENAI_MODEL = "text-embedding-3-small";

  private EmbeddingTestConfigs() {}

  /** A deadline {@code d} from now. */
  public static Deadline in(Duration d) {
    return Deadline.in(d);
  }

  public static AppConfig.Embedding cohere(String baseUrl, String apiKey, int dimension, int maxAttempts) {
    return new AppConfig.Embedding(Provider.COHERE, Duration.ofSeconds(10), maxAttempts,
        Duration.ofMillis(20), Duration.ofMillis(100),
        new Cohere(Optional.of(apiKey), baseUrl, COHERE_MODEL, dimension, 96),
        new OpenAi(Optional.empty(), "http://127.0.0.1:9", OPENAI_MODEL, dimension, 256),
        new Local("bge-small-en-v1.5-q", 384, 32));
  }

  public static AppConfig.Embedding openAi(String baseUrl, String apiKey, int dimension, int maxAttempts) {
    return new AppConfig.Embedding(Provider.OPENAI, Duration.ofSeconds(10), maxAttempts,
        Duration.ofMillis(20), Duration.ofMillis(100),
        new Cohere(Optional.empty(), "http://127.0.0.1:9", COHERE_MODEL, dimension, 96),
        new OpenAi(Optional.ofNullable(apiKey), baseUrl, OPENAI_MODEL, dimension, 256),
        new Local("bge-small-en-v1.5-q", 384, 32));
  }

  /** The local model, taking up to {@code batchSize} waiting texts per run. */
  public static AppConfig.Embedding local(int batchSize) {
    return new AppConfig.Embedding(Provider.LOCAL, Duration.ofSeconds(10), 1,
        Duration.ofMillis(20), Duration.ofMillis(100),
        new Cohere(Optional.empty(), "http://127.0.0.1:9", COHERE_MODEL, 384, 96),
        new OpenAi(Optional.empty(), "http://127.0.0.1:9", OPENAI_MODEL, 384, 256),
        new Local("bge-small-en-v1.5-q", 384, 32, batchSize));
  }
}
