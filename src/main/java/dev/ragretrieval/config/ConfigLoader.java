package dev.ragretrieval.config;

import dev.ragretrieval.config.AppConfig.Circuit;
import dev.ragretrieval.config.AppConfig.Cohere;
import dev.ragretrieval.config.AppConfig.Edge;
import dev.ragretrieval.config.AppConfig.Embedding;
import dev.ragretrieval.config.AppConfig.Http;
import dev.ragretrieval.config.AppConfig.Local;
import dev.ragretrieval.config.AppConfig.LogFormat;
import dev.ragretrieval.config.AppConfig.Logging;
import dev.ragretrieval.config.AppConfig.OpenAi;
import dev.ragretrieval.config.AppConfig.Provider;
import dev.ragretrieval.config.AppConfig.Qdrant;
import dev.ragretrieval.config.AppConfig.Retrieval;
import dev.ragretrieval.config.AppConfig.Security;
import dev.ragretrieval.config.AppConfig.Store;
import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads {@code conf/config.yaml} (or {@code RAG_CONFIG}) through vertx-config, lays the
 * environment variables over it and validates the result into an {@link AppConfig}.
 */
public final class ConfigLoader {

  public static final String DEFAULT_PATH = "conf/config.yaml";

  /** Environment variable -> dotted path in the YAML tree. */
  static final Map<String, String> ENV_PATHS = new LinkedHashMap<>();

  static {
    ENV_PATHS.put("RAG_HTTP_PORT", "http.port");
    ENV_PATHS.put("RAG_MAX_IN_FLIGHT", "http.max_in_flight");
    ENV_PATHS.put("RAG_REQUEST_TIMEOUT_MS", "http.request_timeout_ms");
    ENV_PATHS.put("RAG_SHUTDOWN_GRACE_MS", "http.shutdown_grace_ms");
    ENV_PATHS.put("RAG_BODY_LIMIT_BYTES", "http.body_limit_bytes");
    ENV_PATHS.put("RAG_CORS_ORIGINS", "http.cors_origins");
    ENV_PATHS.put("RAG_MAX_CONNECTIONS", "http.max_connections");
    ENV_PATHS.put("RAG_HEADER_TIMEOUT_MS", "http.header_timeout_ms");
    ENV_PATHS.put("RAG_IDLE_TIMEOUT_MS", "http.idle_timeout_ms");
    ENV_PATHS.put("RAG_URI_LIMIT_BYTES", "http.uri_limit_bytes");
    ENV_PATHS.put("RAG_HEADER_LIMIT_BYTES", "http.header_limit_bytes");
    ENV_PATHS.put("RAG_API_KEYS", "security.api_keys");
    ENV_PATHS.put("QDRANT_HOST", "qdrant.host");
    ENV_PATHS.put("QDRANT_GRPC_PORT", "qdrant.grpc_port");
    ENV_PATHS.put("QDRANT_API_KEY", "qdrant.api_key");
    ENV_PATHS.put("QDRANT_TLS", "qdrant.tls");
    ENV_PATHS.put("QDRANT_CA_CERT", "qdrant.ca_cert");
    ENV_PATHS.put("QDRANT_COLLECTION", "qdrant.collection");
    ENV_PATHS.put("QDRANT_COLLECTIONS", "qdrant.collections");
    ENV_PATHS.put("EMBEDDING_PROVIDER", "embedding.provider");
    ENV_PATHS.put("COHERE_API_KEY", "embedding.cohere.api_key");
    ENV_PATHS.put("COHERE_BASE_URL", "embedding.cohere.base_url");
    ENV_PATHS.put("COHERE_EMBED_MODEL", "embedding.cohere.model");
    ENV_PATHS.put("COHERE_EMBED_DIMENSION", "embedding.cohere.dimension");
    ENV_PATHS.put("OPENAI_API_KEY", "embedding.openai.api_key");
    ENV_PATHS.put("OPENAI_BASE_URL", "embedding.openai.base_url");
    ENV_PATHS.put("OPENAI_EMBED_MODEL", "embedding.openai.model");
    ENV_PATHS.put("OPENAI_EMBED_DIMENSIONS", "embedding.openai.dimensions");
    ENV_PATHS.put("RAG_QUERY_CACHE_SIZE", "embedding.query_cache_size");
    ENV_PATHS.put("RAG_LOCAL_EMBED_BATCH", "embedding.local.batch_size");
    ENV_PATHS.put("EMBEDDING_CA_CERT", "embedding.ca_cert");
    ENV_PATHS.put("RAG_SEARCH_MODE", "retrieval.search_mode");
    ENV_PATHS.put("RERANK_PROVIDER", "retrieval.rerank.provider");
    ENV_PATHS.put("COHERE_RERANK_MODEL", "retrieval.rerank.model");
    ENV_PATHS.put("RAG_DATA_DIR", "store.data_dir");
    ENV_PATHS.put("RAG_LOAD_SAMPLE_BOOK", "store.load_sample_book");
    ENV_PATHS.put("RAG_LOG_LEVEL", "logging.level");
    ENV_PATHS.put("RAG_LOG_FORMAT", "logging.format");
    ENV_PATHS.put("RAG_LOG_QUERY_TEXT", "logging.log_query_text");
  }

  /** Keys whose environment value is a comma-separated list. */
  private static final Set<String> LIST_PATHS =
      Set.of("http.cors_origins", "security.api_keys", "qdrant.collections");

  private ConfigLoader() {}

  /** The environment variable names the service reads (the k8s manifests are checked against it). */
  public static Set<String> environmentVariables() {
    Set<String> names = new LinkedHashSet<>(ENV_PATHS.keySet());
    names.add("RAG_CONFIG");
    return names;
  }

  /** Loads the file named by RAG_CONFIG (or the default) and the environment. */
  public static Future<AppConfig> load(Vertx vertx, Map<String, String> env) {
    String path = env.getOrDefault("RAG_CONFIG", DEFAULT_PATH);
    ConfigStoreOptions file = new ConfigStoreOptions()
        .setType("file")
        .setFormat("yaml")
        .setConfig(new JsonObject().put("path", path));
    ConfigRetriever retriever =
        ConfigRetriever.create(vertx, new ConfigRetrieverOptions().setScanPeriod(0).addStore(file));
    return retriever.getConfig()
        .recover(err -> Future.failedFuture(
            new ConfigException("cannot read configuration file " + path + ": " + firstLine(err))))
        .map(yaml -> fromJson(yaml, env))
        .onComplete(done -> retriever.close());
  }

  /** Lays the environment over a YAML tree and validates it. */
  public static AppConfig fromJson(JsonObject yaml, Map<String, String> env) {
    JsonObject tree = yaml.copy();
    ENV_PATHS.forEach((var, path) -> {
      String value = env.get(var);
      if (value != null && !value.isBlank()) {
        put(tree, path, LIST_PATHS.contains(path) ? splitList(value) : value.trim());
      }
    });
    return parse(tree);
  }

  static AppConfig parse(JsonObject c) {
    JsonObject http = section(c, "http");
    JsonObject qdrant = section(c, "qdrant");
    JsonObject emb = section(c, "embedding");
    JsonObject cohere = section(emb, "cohere");
    JsonObject openai = section(emb, "openai");
    JsonObject local = section(emb, "local");
    JsonObject retrieval = section(c, "retrieval");
    JsonObject store = section(c, "store");
    JsonObject logging = section(c, "logging");

    int maxQueryChars = intIn(section(c, "retrieval"), "retrieval.max_query_chars", "max_query_chars", 1000, 1, 100_000);
    Http httpConfig = new Http(
        intIn(http, "RAG_HTTP_PORT", "port", 8080, 0, 65535),
        str(http, "host", "0.0.0.0"),
        intIn(http, "http.body_limit_bytes", "body_limit_bytes", 65536, 1024, 64 * 1024 * 1024),
        intIn(http, "http.max_in_flight", "max_in_flight", 256, 1, 1_000_000),
        millis(http, "http.request_timeout_ms", "request_timeout_ms", 15000),
        millis(http, "http.shutdown_grace_ms", "shutdown_grace_ms", 20000),
        strings(http, "cors_origins", List.of("*")),
        edge(http, maxQueryChars));

    Security security = new Security(Set.copyOf(strings(section(c, "security"), "api_keys", List.of())));

    Optional<String> cohereKey = optionalStr(cohere, "api_key");
    Optional<String> openaiKey = optionalStr(openai, "api_key");
    Provider provider = provider(str(emb, "provider", "auto"), cohereKey);
    if (provider == Provider.COHERE && cohereKey.isEmpty()) {
      throw new ConfigException("EMBEDDING_PROVIDER=cohere needs COHERE_API_KEY");
    }
    if (provider == Provider.OPENAI && str(openai, "base_url", "").isBlank()) {
      throw new ConfigException("EMBEDDING_PROVIDER=openai needs OPENAI_BASE_URL");
    }

    Embedding embedding = new Embedding(
        provider,
        millis(emb, "embedding.timeout_ms", "timeout_ms", 10000),
        intIn(emb, "embedding.max_attempts", "max_attempts", 4, 1, 20),
        millis(emb, "embedding.initial_backoff_ms", "initial_backoff_ms", 200),
        millis(emb, "embedding.max_backoff_ms", "max_backoff_ms", 4000),
        new Cohere(
            cohereKey,
            url(cohere, "COHERE_BASE_URL", "base_url", "https://api.cohere.com"),
            str(cohere, "model", "embed-english-v3.0"),
            intIn(cohere, "COHERE_EMBED_DIMENSION", "dimension", 1024, 1, 65536),
            intIn(cohere, "embedding.cohere.max_texts_per_call", "max_texts_per_call", 96, 1, 96)),
        new OpenAi(
            openaiKey,
            url(openai, "OPENAI_BASE_URL", "base_url", "https://api.openai.com"),
            str(openai, "model", "text-embedding-3-small"),
            intIn(openai, "OPENAI_EMBED_DIMENSIONS", "dimensions", 1536, 1, 65536),
            intIn(openai, "embedding.openai.max_texts_per_call", "max_texts_per_call", 256, 1, 2048)),
        new Local(
            str(local, "model", "bge-small-en-v1.5-q"),
            intIn(local, "embedding.local.dimension", "dimension", 384, 1, 65536),
            intIn(local, "embedding.local.max_texts_per_call", "max_texts_per_call", 32, 1, 1024),
            intIn(local, "embedding.local.batch_size", "batch_size", Local.DEFAULT_BATCH_SIZE, 1, 1024)),
        intIn(emb, "RAG_QUERY_CACHE_SIZE", "query_cache_size", Embedding.DEFAULT_QUERY_CACHE_SIZE, 0, 10_000_000),
        circuit(emb, "embedding.circuit_breaker"),
        caFile(emb, "EMBEDDING_CA_CERT"));

    String collection = str(qdrant, "collection", "textbook_chunks");
    checkCollectionName("QDRANT_COLLECTION", collection);
    List<String> others = strings(qdrant, "collections", List.of());
    others.forEach(name -> checkCollectionName("QDRANT_COLLECTIONS", name));
    boolean tls = bool(qdrant, "QDRANT_TLS", "tls", false);
    Qdrant qdrantConfig = new Qdrant(
        optionalStr(qdrant, "host"),
        intIn(qdrant, "QDRANT_GRPC_PORT", "grpc_port", 6334, 1, 65535),
        optionalStr(qdrant, "api_key"),
        tls,
        caCert(qdrant, tls),
        collection,
        Set.copyOf(others),
        millis(qdrant, "qdrant.timeout_ms", "timeout_ms", 5000),
        intIn(qdrant, "qdrant.max_attempts", "max_attempts", 3, 1, 20),
        circuit(qdrant, "qdrant.circuit_breaker"));

    int maxTopK = intIn(retrieval, "retrieval.max_top_k", "max_top_k", 100, 1, 1000);
    Retrieval retrievalConfig = new Retrieval(
        intIn(retrieval, "retrieval.max_query_chars", "max_query_chars", 1000, 1, 100_000),
        intIn(retrieval, "retrieval.default_top_k", "default_top_k", 5, 1, maxTopK),
        maxTopK,
        bool(retrieval, "retrieval.clamp_top_k", "clamp_top_k", false),
        doubleIn(retrieval, "retrieval.default_score_threshold", "default_score_threshold", 0.1),
        intIn(retrieval, "retrieval.max_context_chars", "max_context_chars", 12000, 100, 10_000_000),
        intIn(retrieval, "retrieval.max_batch_queries", "max_batch_queries", 32, 1, 1024),
        intIn(retrieval, "retrieval.max_text_chars", "max_text_chars", 10000, 100, 10_000_000),
        strings(retrieval, "filter_keys", List.of("chapter", "section")),
        payloadKeys(section(retrieval, "payload_keys")),
        hybridByDefault(str(retrieval, "search_mode", "hybrid")),
        rerank(section(retrieval, "rerank")));

    Store storeConfig = new Store(
        Path.of(str(store, "data_dir", "./data")),
        bool(store, "RAG_LOAD_SAMPLE_BOOK", "load_sample_book", true));

    LogFormat format;
    try {
      format = LogFormat.valueOf(str(logging, "format", "auto").toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("RAG_LOG_FORMAT must be auto, json or plain");
    }
    Logging loggingConfig = new Logging(
        str(logging, "level", "INFO").toUpperCase(Locale.ROOT),
        format,
        bool(logging, "RAG_LOG_QUERY_TEXT", "log_query_text", false));

    return new AppConfig(httpConfig, security, qdrantConfig, embedding, retrievalConfig, storeConfig, loggingConfig);
  }

  private static boolean hybridByDefault(String mode) {
    return switch (mode.trim().toLowerCase(Locale.ROOT)) {
      case "hybrid" -> true;
      case "dense" -> false;
      default -> throw new ConfigException("RAG_SEARCH_MODE (retrieval.search_mode) must be hybrid or dense");
    };
  }

  private static AppConfig.Rerank rerank(JsonObject rerank) {
    String provider = str(rerank, "provider", "none").trim().toLowerCase(Locale.ROOT);
    if (!provider.equals("none") && !provider.equals("cohere")) {
      throw new ConfigException("RERANK_PROVIDER (retrieval.rerank.provider) must be none or cohere");
    }
    return new AppConfig.Rerank(provider,
        str(rerank, "model", AppConfig.Rerank.OFF.model()),
        intIn(rerank, "retrieval.rerank.candidates_per_result", "candidates_per_result", 4, 1, 100),
        intIn(rerank, "retrieval.rerank.max_candidates", "max_candidates", 1000, 1, 1000));
  }

  private static Provider provider(String value, Optional<String> cohereKey) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "auto" -> cohereKey.isPresent() ? Provider.COHERE : Provider.LOCAL;
      case "cohere" -> Provider.COHERE;
      case "local" -> Provider.LOCAL;
      case "openai" -> Provider.OPENAI;
      default -> throw new ConfigException(
          "EMBEDDING_PROVIDER must be auto, cohere, local or openai (got '" + value + "')");
    };
  }

  /**
   * The edge's limits. The request line and the header block must hold the longest query the
   * contract allows on GET /v1/retrieve/stream: every character 4 bytes of UTF-8, percent-encoded
   * (12 bytes a character), plus room for the other parameters; the page's EventSource request
   * can repeat that URL in its Referer header.
   */
  private static Edge edge(JsonObject http, int maxQueryChars) {
    Edge def = Edge.DEFAULT;
    return new Edge(
        intIn(http, "RAG_MAX_CONNECTIONS", "max_connections", def.maxConnections(), 1, 1_000_000),
        intIn(http, "http.connection_reserve", "connection_reserve", def.connectionReserve(), 0, 100_000),
        millis(http, "RAG_HEADER_TIMEOUT_MS", "header_timeout_ms", (int) def.headerTimeout().toMillis()),
        millis(http, "RAG_IDLE_TIMEOUT_MS", "idle_timeout_ms", (int) def.idleTimeout().toMillis()),
        fitsLongestQuery(http, "RAG_URI_LIMIT_BYTES", "uri_limit_bytes", def.uriLimitBytes(), maxQueryChars),
        fitsLongestQuery(http, "RAG_HEADER_LIMIT_BYTES", "header_limit_bytes", def.headerLimitBytes(), maxQueryChars));
  }

  private static int fitsLongestQuery(JsonObject http, String name, String key, int def, int maxQueryChars) {
    int value = intIn(http, name, key, def, 1024, 16 * 1024 * 1024);
    int needed = 12 * maxQueryChars + 4096;
    if (value < needed) {
      throw new ConfigException(name + " must be at least " + needed + " (got " + value + ") so that a query of "
          + maxQueryChars + " characters fits GET /v1/retrieve/stream once percent-encoded");
    }
    return value;
  }

  private static Map<String, List<String>> payloadKeys(JsonObject json) {
    Map<String, List<String>> keys = new LinkedHashMap<>();
    keys.put("text", List.of("text", "raw_text", "content", "chunk_text"));
    keys.put("source_url", List.of("source_url", "url"));
    keys.put("page_title", List.of("page_title", "title", "document_title"));
    keys.put("chapter", List.of("chapter", "chapter_title"));
    keys.put("section", List.of("section", "section_title"));
    keys.put("chunk_index", List.of("chunk_index", "position"));
    keys.put("chunk_id", List.of("chunk_id"));
    for (String field : json.fieldNames()) {
      if (!keys.containsKey(field)) {
        throw new ConfigException("retrieval.payload_keys." + field + " is not a result field (one of " + keys.keySet() + ")");
      }
      List<String> list = strings(json, field, List.of());
      if (list.isEmpty()) {
        throw new ConfigException("retrieval.payload_keys." + field + " must list at least one payload key");
      }
      keys.put(field, list);
    }
    return Map.copyOf(keys);
  }

  private static Optional<Path> caCert(JsonObject qdrant, boolean tls) {
    if (!tls && optionalStr(qdrant, "ca_cert").isPresent()) {
      // a CA file with TLS off would silently send the api key in clear text
      throw new ConfigException("QDRANT_CA_CERT is set but QDRANT_TLS is false; set QDRANT_TLS=true");
    }
    return caFile(qdrant, "QDRANT_CA_CERT");
  }

  /** A file setting (key {@code ca_cert}); checked here so a wrong path stops start-up instead of failing every call later. */
  private static Optional<Path> caFile(JsonObject json, String setting) {
    Optional<String> value = optionalStr(json, "ca_cert");
    if (value.isEmpty()) {
      return Optional.empty();
    }
    ConfigException unreadable = new ConfigException(setting + " '" + value.get() + "' is not a readable file");
    Path path;
    try {
      path = Path.of(value.get());
    } catch (InvalidPathException e) {
      throw unreadable;
    }
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw unreadable;
    }
    return Optional.of(path);
  }

  private static Circuit circuit(JsonObject parent, String name) {
    JsonObject json = section(parent, "circuit_breaker");
    Circuit def = Circuit.DEFAULT;
    return new Circuit(
        intIn(json, name + ".failures", "failures", def.failures(), 0, 1_000_000),
        millis(json, name + ".window_ms", "window_ms", (int) def.window().toMillis()),
        millis(json, name + ".open_ms", "open_ms", (int) def.open().toMillis()));
  }

  private static void checkCollectionName(String setting, String name) {
    if (!name.matches("[A-Za-z0-9_.-]{1,255}")) {
      throw new ConfigException(setting + " '" + name + "' is not a valid collection name");
    }
  }

  // --- small typed readers; each failure names the setting in one line ---

  private static JsonObject section(JsonObject parent, String key) {
    Object value = parent.getValue(key);
    if (value == null) {
      return new JsonObject();
    }
    if (value instanceof JsonObject obj) {
      return obj;
    }
    throw new ConfigException("configuration section '" + key + "' must be a mapping");
  }

  private static String str(JsonObject json, String key, String def) {
    Object value = json.getValue(key);
    return value == null ? def : String.valueOf(value).trim();
  }

  private static Optional<String> optionalStr(JsonObject json, String key) {
    Object value = json.getValue(key);
    if (value == null || String.valueOf(value).isBlank()) {
      return Optional.empty();
    }
    return Optional.of(String.valueOf(value).trim());
  }

  private static String url(JsonObject json, String name, String key, String def) {
    String value = str(json, key, def);
    if (!value.matches("(?i)https?://[^\\s/]+.*")) {
      throw new ConfigException(name + " must be an http(s) URL (got '" + value + "')");
    }
    return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
  }

  private static int intIn(JsonObject json, String name, String key, int def, int min, int max) {
    Object value = json.getValue(key);
    if (value == null) {
      return def;
    }
    long parsed;
    try {
      parsed = value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(name + " must be an integer (got '" + value + "')");
    }
    if (parsed < min || parsed > max) {
      throw new ConfigException(name + " must be between " + min + " and " + max + " (got " + parsed + ")");
    }
    return (int) parsed;
  }

  private static double doubleIn(JsonObject json, String name, String key, double def) {
    Object value = json.getValue(key);
    if (value == null) {
      return def;
    }
    double parsed;
    try {
      parsed = value instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(name + " must be a number (got '" + value + "')");
    }
    if (!(parsed >= 0 && parsed <= 1)) {
      throw new ConfigException(name + " must be between 0 and 1 (got " + parsed + ")");
    }
    return parsed;
  }

  private static Duration millis(JsonObject json, String name, String key, int def) {
    return Duration.ofMillis(intIn(json, name, key, def, 1, Integer.MAX_VALUE));
  }

  private static boolean bool(JsonObject json, String name, String key, boolean def) {
    Object value = json.getValue(key);
    if (value == null) {
      return def;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    return switch (String.valueOf(value).trim().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw new ConfigException(name + " must be true or false (got '" + value + "')");
    };
  }

  private static List<String> strings(JsonObject json, String key, List<String> def) {
    Object value = json.getValue(key);
    if (value == null) {
      return def;
    }
    if (value instanceof JsonArray array) {
      List<String> out = new ArrayList<>();
      array.forEach(v -> {
        if (v != null && !String.valueOf(v).isBlank()) {
          out.add(String.valueOf(v).trim());
        }
      });
      return List.copyOf(out);
    }
    return List.copyOf(splitList(String.valueOf(value)).getList());
  }

  private static JsonArray splitList(String value) {
    JsonArray out = new JsonArray();
    Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
    return out;
  }

  private static void put(JsonObject tree, String dottedPath, Object value) {
    String[] parts = dottedPath.split("\\.");
    JsonObject node = tree;
    for (int i = 0; i < parts.length - 1; i++) {
      Object child = node.getValue(parts[i]);
      if (!(child instanceof JsonObject)) {
        child = new JsonObject();
        node.put(parts[i], child);
      }
      node = (JsonObject) child;
    }
    node.put(parts[parts.length - 1], value);
  }

  private static String firstLine(Throwable err) {
    String message = String.valueOf(err.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
