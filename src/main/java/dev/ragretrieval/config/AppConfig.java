package dev.ragretrieval.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/** The whole configuration, read once at start-up and validated there. */
public record AppConfig(
    Http http,
    Security security,
    Qdrant qdrant,
    Embedding embedding,
    Retrieval retrieval,
    Store store,
    Logging logging,
    Ingest ingest,
    Tracing tracing) {

  /** With the default ingest pace and tracing settings. */
  public AppConfig(Http http, Security security, Qdrant qdrant, Embedding embedding, Retrieval retrieval, Store store,
      Logging logging) {
    this(http, security, qdrant, embedding, retrieval, store, logging, Ingest.DEFAULT, Tracing.DEFAULT);
  }

  /** The same settings, with the embedder making at most {@code maxAttempts} attempts of each call itself. */
  public AppConfig withEmbeddingAttempts(int maxAttempts) {
    Embedding e = embedding;
    return new AppConfig(http, security, qdrant, new Embedding(e.provider(), e.timeout(), maxAttempts, e.initialBackoff(),
        e.maxBackoff(), e.cohere(), e.openai(), e.local(), e.queryCacheSize(), e.circuit(), e.caCert()),
        retrieval, store, logging, ingest, tracing);
  }

  public record Http(
      int port,
      String host,
      int bodyLimitBytes,
      int maxInFlight,
      Duration requestTimeout,
      Duration shutdownGrace,
      List<String> corsOrigins,
      Edge edge,
      int instances) {

    /** One HTTP verticle per available processor. */
    public Http(int port, String host, int bodyLimitBytes, int maxInFlight, Duration requestTimeout,
        Duration shutdownGrace, List<String> corsOrigins, Edge edge) {
      this(port, host, bodyLimitBytes, maxInFlight, requestTimeout, shutdownGrace, corsOrigins, edge,
          defaultInstances());
    }

    /** With the default connection limits. */
    public Http(int port, String host, int bodyLimitBytes, int maxInFlight, Duration requestTimeout,
        Duration shutdownGrace, List<String> corsOrigins) {
      this(port, host, bodyLimitBytes, maxInFlight, requestTimeout, shutdownGrace, corsOrigins, Edge.DEFAULT);
    }

    /** RAG_HTTP_INSTANCES unset (or 0): one instance per processor the JVM may use (the pod's CPU limit). */
    public static int defaultInstances() {
      return Runtime.getRuntime().availableProcessors();
    }
  }

  /**
   * The HTTP edge's limits against abusive clients. Up to {@code maxConnections} connections are
   * served; the next {@code connectionReserve} get one answer each (/health/* as usual, anything
   * else 503 OVERLOADED) and are closed; beyond those a new connection is closed at once. A
   * connection must deliver its first request head within {@code headerTimeout}; between requests
   * it may stay idle for {@code idleTimeout}. {@code uriLimitBytes} bounds the request line (414),
   * {@code headerLimitBytes} the header block (431).
   */
  public record Edge(
      int maxConnections,
      int connectionReserve,
      Duration headerTimeout,
      Duration idleTimeout,
      int uriLimitBytes,
      int headerLimitBytes) {
    public static final Edge DEFAULT = new Edge(4096, 64, Duration.ofSeconds(10), Duration.ofSeconds(75), 32768, 32768);
  }

  public record Security(Set<String> apiKeys) {
    public boolean authRequired() {
      return !apiKeys.isEmpty();
    }

    @Override
    public String toString() {
      return "Security[apiKeys=" + apiKeys.size() + " configured]";
    }
  }

  /**
   * host empty = the embedded vector store. caCert: PEM file with the CA certificate(s) a
   * self-hosted Qdrant's TLS certificate is checked against; empty = the JVM's trust store.
   */
  public record Qdrant(
      Optional<String> host,
      int grpcPort,
      Optional<String> apiKey,
      boolean tls,
      Optional<Path> caCert,
      String collection,
      Set<String> collections,
      Duration timeout,
      int maxAttempts,
      Circuit circuit,
      Layout layout,
      Optional<WriteOrdering> writeOrdering,
      Optional<ReadConsistency> readConsistency,
      Failover failover) {

    /** Qdrant's own defaults for layout and consistency. */
    public Qdrant(Optional<String> host, int grpcPort, Optional<String> apiKey, boolean tls, Optional<Path> caCert,
        String collection, Set<String> collections, Duration timeout, int maxAttempts, Circuit circuit) {
      this(host, grpcPort, apiKey, tls, caCert, collection, collections, timeout, maxAttempts, circuit,
          Layout.QDRANT_DEFAULT, Optional.empty(), Optional.empty(), Failover.DEFAULT);
    }

    /** With the default circuit breaker. */
    public Qdrant(Optional<String> host, int grpcPort, Optional<String> apiKey, boolean tls, Optional<Path> caCert,
        String collection, Set<String> collections, Duration timeout, int maxAttempts) {
      this(host, grpcPort, apiKey, tls, caCert, collection, collections, timeout, maxAttempts, Circuit.DEFAULT);
    }

    /** Without a CA file: TLS (when on) trusts the JVM's default trust store. */
    public Qdrant(Optional<String> host, int grpcPort, Optional<String> apiKey, boolean tls, String collection,
        Set<String> collections, Duration timeout, int maxAttempts) {
      this(host, grpcPort, apiKey, tls, Optional.empty(), collection, collections, timeout, maxAttempts);
    }

    public boolean embedded() {
      return host.isEmpty();
    }

    /**
     * Whether a request may name this collection. {@code collections} is the optional allow-list
     * (QDRANT_COLLECTIONS): empty = every collection in the store; set = the default plus those.
     */
    public boolean allows(String name) {
      return !restricted() || collection.equals(name) || collections.contains(name);
    }

    /** QDRANT_COLLECTIONS is set: only the default collection and the listed ones may be searched. */
    public boolean restricted() {
      return !collections.isEmpty();
    }

    @Override
    public String toString() {
      return "Qdrant[host=" + host.orElse("<embedded>") + ", grpcPort=" + grpcPort + ", tls=" + tls
          + caCert.map(path -> ", caCert=" + path).orElse("") + ", apiKey=" + (apiKey.isPresent() ? "***" : "<none>") + ", collection=" + collection + "]";
    }
  }

  /**
   * How a collection the service creates is laid out (ingest, {@code --recreate}); empty = Qdrant's
   * own default. Existing collections are never changed.
   */
  public record Layout(
      OptionalInt shardNumber,
      OptionalInt replicationFactor,
      OptionalInt writeConsistencyFactor,
      boolean onDiskPayload,
      Quantization quantization) {
    public static final Layout QDRANT_DEFAULT =
        new Layout(OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), false, Quantization.NONE);
  }

  public enum Quantization { NONE, INT8 }

  /** Qdrant's write ordering, sent with every write. */
  public enum WriteOrdering { WEAK, MEDIUM, STRONG }

  /**
   * How many replicas a search must hear from: a number ({@code factor}) or one of Qdrant's words
   * ({@code majority}, {@code quorum}, {@code all}); exactly one is present.
   */
  public record ReadConsistency(OptionalInt factor, Optional<String> type) {
    public static final List<String> TYPES = List.of("majority", "quorum", "all");

    public static ReadConsistency of(int factor) {
      return new ReadConsistency(OptionalInt.of(factor), Optional.empty());
    }

    public static ReadConsistency of(String type) {
      return new ReadConsistency(OptionalInt.empty(), Optional.of(type));
    }
  }

  /**
   * How often the Qdrant host name is resolved again and a failed address probed, and how long a
   * read may go unanswered before it is also sent to another node ({@link Duration#ZERO}: never).
   */
  public record Failover(Duration resolveInterval, Duration probeInterval, Duration hedgeAfter) {
    public static final Failover DEFAULT = new Failover(Duration.ofSeconds(10), Duration.ofSeconds(1),
        Duration.ofMillis(300));
  }

  /** Ingest's pace: embed calls at once, and an optional budget of texts per minute. */
  public record Ingest(int embedConcurrency, OptionalInt embedRatePerMinute) {
    public static final Ingest DEFAULT = new Ingest(4, OptionalInt.empty());
  }

  /** Tracing itself is configured by the standard OTEL_* variables; this says what spans may carry. */
  public record Tracing(boolean queryText) {
    public static final Tracing DEFAULT = new Tracing(false);
  }

  /**
   * A circuit breaker in front of one upstream: {@code failures} calls that could not reach it
   * within {@code window} open it for {@code open}; 0 failures turns it off.
   */
  public record Circuit(int failures, Duration window, Duration open) {
    public static final Circuit DEFAULT = new Circuit(5, Duration.ofSeconds(10), Duration.ofSeconds(5));
    /** No breaker: in-process work has no outage to wait out. */
    public static final Circuit DISABLED = new Circuit(0, Duration.ofSeconds(10), Duration.ofSeconds(5));

    public boolean enabled() {
      return failures > 0;
    }
  }

  public enum Provider { COHERE, LOCAL, OPENAI }

  /** caCert: PEM CA certificate(s) an https embedding endpoint is checked against; empty = the JVM's trust store. */
  public record Embedding(
      Provider provider,
      Duration timeout,
      int maxAttempts,
      Duration initialBackoff,
      Duration maxBackoff,
      Cohere cohere,
      OpenAi openai,
      Local local,
      int queryCacheSize,
      Circuit circuit,
      Optional<Path> caCert) {

    /** With the JVM's trust store for https endpoints. */
    public Embedding(Provider provider, Duration timeout, int maxAttempts, Duration initialBackoff,
        Duration maxBackoff, Cohere cohere, OpenAi openai, Local local, int queryCacheSize, Circuit circuit) {
      this(provider, timeout, maxAttempts, initialBackoff, maxBackoff, cohere, openai, local, queryCacheSize,
          circuit, Optional.empty());
    }

    /** With the default circuit breaker. */
    public Embedding(Provider provider, Duration timeout, int maxAttempts, Duration initialBackoff,
        Duration maxBackoff, Cohere cohere, OpenAi openai, Local local, int queryCacheSize) {
      this(provider, timeout, maxAttempts, initialBackoff, maxBackoff, cohere, openai, local, queryCacheSize,
          Circuit.DEFAULT);
    }

    /** Without an explicit cache size: the default one. */
    public Embedding(Provider provider, Duration timeout, int maxAttempts, Duration initialBackoff,
        Duration maxBackoff, Cohere cohere, OpenAi openai, Local local) {
      this(provider, timeout, maxAttempts, initialBackoff, maxBackoff, cohere, openai, local, DEFAULT_QUERY_CACHE_SIZE);
    }

    public static final int DEFAULT_QUERY_CACHE_SIZE = 10_000;

    /** The model name results report as embedding_model. */
    public String modelName() {
      return switch (provider) {
        case COHERE -> cohere.model();
        case OPENAI -> openai.model();
        case LOCAL -> local.model();
      };
    }

    /** The vector size the configured provider produces. */
    public int dimension() {
      return switch (provider) {
        case COHERE -> cohere.dimension();
        case OPENAI -> openai.dimensions();
        case LOCAL -> local.dimension();
      };
    }
  }

  public record Cohere(Optional<String> apiKey, String baseUrl, String model, int dimension, int maxTextsPerCall) {
    @Override
    public String toString() {
      return "Cohere[baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey.isPresent() ? "***" : "<none>") + "]";
    }
  }

  public record OpenAi(Optional<String> apiKey, String baseUrl, String model, int dimensions, int maxTextsPerCall) {
    @Override
    public String toString() {
      return "OpenAi[baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey.isPresent() ? "***" : "<none>") + "]";
    }
  }

  /** {@code batchSize}: the most waiting texts one run of the local model takes (RAG_LOCAL_EMBED_BATCH). */
  public record Local(String model, int dimension, int maxTextsPerCall, int batchSize) {
    public static final int DEFAULT_BATCH_SIZE = 32;

    public Local(String model, int dimension, int maxTextsPerCall) {
      this(model, dimension, maxTextsPerCall, DEFAULT_BATCH_SIZE);
    }
  }

  public record Retrieval(
      int maxQueryChars,
      int defaultTopK,
      int maxTopK,
      boolean clampTopK,
      double defaultScoreThreshold,
      int maxContextChars,
      int maxBatchQueries,
      int maxTextChars,
      List<String> filterKeys,
      Map<String, List<String>> payloadKeys,
      boolean hybridByDefault,
      Rerank rerank,
      Fusion fusion,
      Duration resultCacheTtl,
      Duration coalesceWindow) {

    /** The result cache's TTL when none is set (RAG_RESULT_CACHE_TTL_MS). */
    public static final Duration DEFAULT_RESULT_CACHE_TTL = Duration.ofSeconds(10);
    /** How long a question may wait to share an upstream call when none is set (RAG_COALESCE_WINDOW_MS). */
    public static final Duration DEFAULT_COALESCE_WINDOW = Duration.ofMillis(2);

    /** With the default result cache and coalescing window. */
    public Retrieval(int maxQueryChars, int defaultTopK, int maxTopK, boolean clampTopK, double defaultScoreThreshold,
        int maxContextChars, int maxBatchQueries, int maxTextChars, List<String> filterKeys,
        Map<String, List<String>> payloadKeys, boolean hybridByDefault, Rerank rerank, Fusion fusion) {
      this(maxQueryChars, defaultTopK, maxTopK, clampTopK, defaultScoreThreshold, maxContextChars, maxBatchQueries,
          maxTextChars, filterKeys, payloadKeys, hybridByDefault, rerank, fusion, DEFAULT_RESULT_CACHE_TTL,
          DEFAULT_COALESCE_WINDOW);
    }

    /** With the default fusion. */
    public Retrieval(int maxQueryChars, int defaultTopK, int maxTopK, boolean clampTopK, double defaultScoreThreshold,
        int maxContextChars, int maxBatchQueries, int maxTextChars, List<String> filterKeys,
        Map<String, List<String>> payloadKeys, boolean hybridByDefault, Rerank rerank) {
      this(maxQueryChars, defaultTopK, maxTopK, clampTopK, defaultScoreThreshold, maxContextChars, maxBatchQueries,
          maxTextChars, filterKeys, payloadKeys, hybridByDefault, rerank, Fusion.DEFAULT);
    }

    /** Hybrid where the collection supports it, rerank off. */
    public Retrieval(int maxQueryChars, int defaultTopK, int maxTopK, boolean clampTopK, double defaultScoreThreshold,
        int maxContextChars, int maxBatchQueries, int maxTextChars, List<String> filterKeys,
        Map<String, List<String>> payloadKeys) {
      this(maxQueryChars, defaultTopK, maxTopK, clampTopK, defaultScoreThreshold, maxContextChars, maxBatchQueries,
          maxTextChars, filterKeys, payloadKeys, true, Rerank.OFF);
    }
  }

  /**
   * Hybrid search's reciprocal rank fusion settings, the same on both stores: a hit at rank r (from
   * 1) of a list adds {@code 1 / (rrfK + r / weight)}; each list gives {@code max(top_k * 4, candidates)}
   * hits. {@link dev.ragretrieval.search.Fusion} computes it.
   */
  public record Fusion(int rrfK, double denseWeight, double keywordWeight, int candidates) {
    public static final Fusion DEFAULT = new Fusion(4, 1.0, 0.25, 40);

    /** Candidates each list gives the fusion for a search of {@code limit} hits. */
    public int candidatesFor(int limit) {
      return Math.max(limit * 4, candidates);
    }
  }

  /**
   * Optional reranking of the first {@code candidatesPerResult * top_k} hits (at most
   * {@code maxCandidates}) into the top_k; {@code provider} is "none" or "cohere".
   */
  public record Rerank(String provider, String model, int candidatesPerResult, int maxCandidates) {
    public static final Rerank OFF = new Rerank("none", "rerank-v3.5", 4, 1000);

    public boolean enabled() {
      return !"none".equals(provider);
    }

    public int candidates(int topK) {
      return Math.max(topK, Math.min(maxCandidates, topK * candidatesPerResult));
    }
  }

  public record Store(Path dataDir, boolean loadSampleBook) {}

  public enum LogFormat { AUTO, JSON, PLAIN }

  public record Logging(String level, LogFormat format, boolean logQueryText) {}
}
