package dev.ragretrieval.config;

import dev.ragretrieval.search.CollectionName;
import dev.ragretrieval.config.AppConfig.Circuit;
import dev.ragretrieval.config.AppConfig.Cohere;
import dev.ragretrieval.config.AppConfig.Edge;
import dev.ragretrieval.config.AppConfig.Embedding;
import dev.ragretrieval.config.AppConfig.Failover;
import dev.ragretrieval.config.AppConfig.Fusion;
import dev.ragretrieval.config.AppConfig.Ingest;
import dev.ragretrieval.config.AppConfig.Layout;
import dev.ragretrieval.config.AppConfig.Quantization;
import dev.ragretrieval.config.AppConfig.ReadConsistency;
import dev.ragretrieval.config.AppConfig.Tracing;
import dev.ragretrieval.config.AppConfig.WriteOrdering;
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
import java.net.URI;
import java.net.URISyntaxException;
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
import java.util.OptionalInt;
import java.util.Set;

/**
 * Reads {@code conf/config.yaml} (or {@code RAG_CONFIG}) through vertx-config, lays the
 * environment variables over it and validates the result into an {@link AppConfig}.
 */
public final class ConfigLoader {

  public static final String DEFAULT_PATH = "conf/config.yaml";

  private ConfigLoader() {}

  /** The environment variable names the service reads (the k8s manifests are checked against it). */
  public static Set<String> environmentVariables() {
    Set<String> names = new LinkedHashSet<>();
    for (Setting setting : Settings.all()) {
      if (setting.env() != null) {
        names.add(setting.env());
      }
    }
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
            new ConfigException("cannot read configuration file " + path + ": " + reason(err))))
        .map(yaml -> fromJson(yaml, env))
        .onComplete(done -> retriever.close());
  }

  /** Lays the environment over a YAML tree and validates it. */
  public static AppConfig fromJson(JsonObject yaml, Map<String, String> env) {
    JsonObject tree = yaml.copy();
    for (Setting setting : Settings.all()) {
      String value = setting.env() == null ? null : env.get(setting.env());
      if (value != null && !value.isBlank()) {
        put(tree, setting.path(), setting.kind() == Setting.Kind.LIST ? items(setting.env(), value) : value.trim());
      }
    }
    return parse(new Values(tree));
  }

  static AppConfig parse(Values v) {
    int maxQueryChars = v.integer(Settings.MAX_QUERY_CHARS);
    int instances = v.integer(Settings.HTTP_INSTANCES);
    Http httpConfig = new Http(
        v.integer(Settings.HTTP_PORT),
        v.string(Settings.HTTP_HOST),
        v.integer(Settings.BODY_LIMIT),
        v.integer(Settings.MAX_IN_FLIGHT),
        v.millis(Settings.REQUEST_TIMEOUT),
        v.millis(Settings.SHUTDOWN_GRACE),
        origins(v.list(Settings.CORS_ORIGINS)),
        edge(v, maxQueryChars),
        instances == 0 ? Http.defaultInstances() : instances);

    Security security = new Security(Set.copyOf(v.list(Settings.API_KEYS)));

    Optional<String> cohereKey = v.optional(Settings.COHERE_API_KEY);
    Provider provider = provider(v.choice(Settings.EMBEDDING_PROVIDER), cohereKey);
    if (provider == Provider.COHERE && cohereKey.isEmpty()) {
      throw new ConfigException("EMBEDDING_PROVIDER=cohere needs COHERE_API_KEY");
    }

    Embedding embedding = new Embedding(
        provider,
        v.millis(Settings.EMBED_TIMEOUT),
        v.integer(Settings.EMBED_MAX_ATTEMPTS),
        v.millis(Settings.EMBED_INITIAL_BACKOFF),
        v.millis(Settings.EMBED_MAX_BACKOFF),
        new Cohere(
            cohereKey,
            v.url(Settings.COHERE_BASE_URL),
            v.string(Settings.COHERE_MODEL),
            v.integer(Settings.COHERE_DIMENSION),
            v.integer(Settings.COHERE_MAX_TEXTS)),
        new OpenAi(
            v.optional(Settings.OPENAI_API_KEY),
            v.url(Settings.OPENAI_BASE_URL),
            v.string(Settings.OPENAI_MODEL),
            v.integer(Settings.OPENAI_DIMENSIONS),
            v.integer(Settings.OPENAI_MAX_TEXTS)),
        new Local(
            v.string(Settings.LOCAL_MODEL),
            v.integer(Settings.LOCAL_DIMENSION),
            v.integer(Settings.LOCAL_MAX_TEXTS),
            v.integer(Settings.LOCAL_BATCH)),
        v.integer(Settings.QUERY_CACHE_SIZE),
        new Circuit(
            v.integer(Settings.EMBED_CIRCUIT_FAILURES),
            v.millis(Settings.EMBED_CIRCUIT_WINDOW),
            v.millis(Settings.EMBED_CIRCUIT_OPEN)),
        v.file(Settings.EMBEDDING_CA_CERT));

    String collection = v.string(Settings.QDRANT_COLLECTION);
    checkCollectionName(Settings.QDRANT_COLLECTION, collection);
    List<String> others = v.list(Settings.QDRANT_COLLECTIONS);
    others.forEach(name -> checkCollectionName(Settings.QDRANT_COLLECTIONS, name));
    boolean tls = v.bool(Settings.QDRANT_TLS);
    if (!tls && v.optional(Settings.QDRANT_CA_CERT).isPresent()) {
      // a CA file with TLS off would silently send the api key in clear text
      throw new ConfigException("QDRANT_CA_CERT is set but QDRANT_TLS is false; set QDRANT_TLS=true");
    }
    Qdrant qdrantConfig = new Qdrant(
        v.optional(Settings.QDRANT_HOST).map(ConfigLoader::qdrantHost),
        v.integer(Settings.QDRANT_GRPC_PORT),
        v.optional(Settings.QDRANT_API_KEY),
        tls,
        v.file(Settings.QDRANT_CA_CERT),
        collection,
        Set.copyOf(others),
        v.millis(Settings.QDRANT_TIMEOUT),
        v.integer(Settings.QDRANT_MAX_ATTEMPTS),
        new Circuit(
            v.integer(Settings.QDRANT_CIRCUIT_FAILURES),
            v.millis(Settings.QDRANT_CIRCUIT_WINDOW),
            v.millis(Settings.QDRANT_CIRCUIT_OPEN)),
        new Layout(
            v.optionalInt(Settings.QDRANT_SHARD_NUMBER),
            v.optionalInt(Settings.QDRANT_REPLICATION_FACTOR),
            v.optionalInt(Settings.QDRANT_WRITE_CONSISTENCY_FACTOR),
            v.bool(Settings.QDRANT_ON_DISK_PAYLOAD),
            Quantization.valueOf(v.choice(Settings.QDRANT_QUANTIZATION).toUpperCase(Locale.ROOT))),
        v.optionalChoice(Settings.QDRANT_WRITE_ORDERING).map(w -> WriteOrdering.valueOf(w.toUpperCase(Locale.ROOT))),
        v.optional(Settings.QDRANT_READ_CONSISTENCY).map(ConfigLoader::readConsistency),
        new Failover(v.millis(Settings.QDRANT_RESOLVE_INTERVAL), v.millis(Settings.QDRANT_PROBE_INTERVAL),
            v.millis(Settings.QDRANT_HEDGE_AFTER)));

    int maxTopK = v.integer(Settings.MAX_TOP_K);
    int defaultTopK = v.integer(Settings.DEFAULT_TOP_K);
    if (defaultTopK > maxTopK) {
      throw new ConfigException(Settings.DEFAULT_TOP_K.name() + " must be between 1 and " + maxTopK + " (got "
          + defaultTopK + ")");
    }
    Retrieval retrievalConfig = new Retrieval(
        maxQueryChars,
        defaultTopK,
        maxTopK,
        v.bool(Settings.CLAMP_TOP_K),
        v.number(Settings.DEFAULT_SCORE_THRESHOLD),
        v.integer(Settings.MAX_CONTEXT_CHARS),
        v.integer(Settings.MAX_BATCH_QUERIES),
        v.integer(Settings.MAX_TEXT_CHARS),
        v.list(Settings.FILTER_KEYS),
        payloadKeys(v.mapping(Settings.PAYLOAD_KEYS)),
        v.choice(Settings.SEARCH_MODE).equals("hybrid"),
        new AppConfig.Rerank(
            v.choice(Settings.RERANK_PROVIDER),
            v.string(Settings.RERANK_MODEL),
            v.integer(Settings.RERANK_PER_RESULT),
            v.integer(Settings.RERANK_MAX_CANDIDATES)),
        new Fusion(
            v.integer(Settings.FUSION_RRF_K),
            v.number(Settings.FUSION_DENSE_WEIGHT),
            v.number(Settings.FUSION_KEYWORD_WEIGHT),
            v.integer(Settings.FUSION_CANDIDATES)),
        Duration.ofMillis(v.integer(Settings.RESULT_CACHE_TTL)),
        Duration.ofMillis(v.integer(Settings.COALESCE_WINDOW)));
    if (retrievalConfig.fusion().denseWeight() + retrievalConfig.fusion().keywordWeight() == 0) {
      throw new ConfigException("RAG_FUSION_DENSE_WEIGHT and RAG_FUSION_KEYWORD_WEIGHT cannot both be 0");
    }

    Store storeConfig = new Store(Path.of(v.string(Settings.DATA_DIR)), v.bool(Settings.LOAD_SAMPLE_BOOK));

    Logging loggingConfig = new Logging(
        v.string(Settings.LOG_LEVEL).toUpperCase(Locale.ROOT),
        LogFormat.valueOf(v.choice(Settings.LOG_FORMAT).toUpperCase(Locale.ROOT)),
        v.bool(Settings.LOG_QUERY_TEXT));

    Ingest ingest = new Ingest(v.integer(Settings.INGEST_EMBED_CONCURRENCY), v.optionalInt(Settings.INGEST_EMBED_RATE));
    Tracing tracing = new Tracing(v.bool(Settings.TRACE_QUERY_TEXT));

    return new AppConfig(httpConfig, security, qdrantConfig, embedding, retrievalConfig, storeConfig, loggingConfig,
        ingest, tracing);
  }

  private static ReadConsistency readConsistency(String value) {
    String word = value.toLowerCase(Locale.ROOT);
    if (ReadConsistency.TYPES.contains(word)) {
      return ReadConsistency.of(word);
    }
    try {
      int factor = Integer.parseInt(word);
      if (factor >= 1) {
        return ReadConsistency.of(factor);
      }
    } catch (NumberFormatException e) {
      // falls through to the message below
    }
    throw new ConfigException("QDRANT_READ_CONSISTENCY must be a number of replicas (1 or more), or majority, quorum"
        + " or all (got '" + value + "')");
  }

  private static Provider provider(String value, Optional<String> cohereKey) {
    return switch (value) {
      case "cohere" -> Provider.COHERE;
      case "local" -> Provider.LOCAL;
      case "openai" -> Provider.OPENAI;
      default -> cohereKey.isPresent() ? Provider.COHERE : Provider.LOCAL;
    };
  }

  /**
   * The edge's limits. The request line and the header block must hold the longest query the
   * contract allows on GET /v1/retrieve/stream: every character 4 bytes of UTF-8, percent-encoded
   * (12 bytes a character), plus room for the other parameters; the page's EventSource request
   * can repeat that URL in its Referer header.
   */
  private static Edge edge(Values v, int maxQueryChars) {
    return new Edge(
        v.integer(Settings.MAX_CONNECTIONS),
        v.integer(Settings.CONNECTION_RESERVE),
        v.millis(Settings.HEADER_TIMEOUT),
        v.millis(Settings.IDLE_TIMEOUT),
        fitsLongestQuery(v, Settings.URI_LIMIT, maxQueryChars),
        fitsLongestQuery(v, Settings.HEADER_LIMIT, maxQueryChars));
  }

  private static int fitsLongestQuery(Values v, Setting setting, int maxQueryChars) {
    int value = v.integer(setting);
    int needed = 12 * maxQueryChars + 4096;
    if (value < needed) {
      throw new ConfigException(setting.name() + " must be at least " + needed + " (got " + value + ") so that a query of "
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
      List<String> list = Values.strings(json.getValue(field), List.of());
      if (list.isEmpty()) {
        throw new ConfigException("retrieval.payload_keys." + field + " must list at least one payload key");
      }
      keys.put(field, list);
    }
    return Map.copyOf(keys);
  }

  /**
   * Browser origins as a CORS check compares them: {@code *}, {@code null} (a sandboxed page's), or
   * scheme://host[:port]. Checked here so that a typo stops the start with the setting's name, not
   * as a failure to listen on the port.
   */
  private static List<String> origins(List<String> origins) {
    for (String origin : origins) {
      if (!origin.equals("*") && !origin.equals("null") && !isOrigin(origin)) {
        throw new ConfigException(Settings.CORS_ORIGINS.name() + " '" + origin
            + "' is not an origin (scheme://host[:port], such as https://docs.example.com; or *)");
      }
    }
    return origins;
  }

  private static boolean isOrigin(String origin) {
    try {
      URI uri = new URI(origin);
      return uri.getScheme() != null && uri.getHost() != null && uri.getUserInfo() == null
          && uri.getRawQuery() == null && uri.getRawFragment() == null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /**
   * A host name or address. A URL (what Qdrant's REST clients take) would be looked up as a name and
   * fail on every call with "cannot resolve", so it stops the start, saying where its parts go.
   */
  private static String qdrantHost(String host) {
    if (host.contains("/") || host.matches("[^:\\[\\]]+:\\d+")) {
      throw new ConfigException(Settings.QDRANT_HOST.name() + " must be a host name or address (got '" + host
          + "'): the port goes in " + Settings.QDRANT_GRPC_PORT.name() + " (gRPC, 6334 unless changed) and https in "
          + Settings.QDRANT_TLS.name() + "=true");
    }
    return host;
  }

  private static void checkCollectionName(Setting setting, String name) {
    if (!CollectionName.isValid(name)) {
      throw new ConfigException(setting.name() + " '" + name + "' is not a valid collection name ("
          + CollectionName.RULE + ")");
    }
  }

  /**
   * The merged YAML tree, read setting by setting: each reader checks the value against its row of
   * the table and names the setting in one line when it does not fit.
   */
  static final class Values {
    private final JsonObject tree;

    Values(JsonObject tree) {
      this.tree = tree;
    }

    private Object raw(Setting setting) {
      String[] parts = setting.path().split("\\.");
      JsonObject node = tree;
      for (int i = 0; i < parts.length - 1; i++) {
        Object child = node.getValue(parts[i]);
        if (child == null) {
          return setting.defaultValue();
        }
        if (!(child instanceof JsonObject obj)) {
          throw new ConfigException("configuration section '" + parts[i] + "' must be a mapping");
        }
        node = obj;
      }
      Object value = node.getValue(parts[parts.length - 1]);
      return value == null ? setting.defaultValue() : value;
    }

    int integer(Setting setting) {
      OptionalInt value = optionalInt(setting);
      if (value.isEmpty()) {
        throw new ConfigException(setting.name() + " must be set");
      }
      return value.getAsInt();
    }

    OptionalInt optionalInt(Setting setting) {
      Object value = raw(setting);
      if (value == null || String.valueOf(value).isBlank()) {
        return OptionalInt.empty();
      }
      long parsed;
      try {
        parsed = value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value).trim());
      } catch (NumberFormatException e) {
        throw new ConfigException(setting.name() + " must be an integer (got '" + value + "')");
      }
      if (parsed < setting.min() || parsed > setting.max()) {
        throw new ConfigException(setting.name() + " must be between " + (long) setting.min() + " and "
            + (long) setting.max() + " (got " + parsed + ")");
      }
      return OptionalInt.of((int) parsed);
    }

    Duration millis(Setting setting) {
      return Duration.ofMillis(integer(setting));
    }

    double number(Setting setting) {
      Object value = raw(setting);
      double parsed;
      try {
        parsed = value instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(value).trim());
      } catch (NumberFormatException e) {
        throw new ConfigException(setting.name() + " must be a number (got '" + value + "')");
      }
      if (!(parsed >= setting.min() && parsed <= setting.max())) {
        throw new ConfigException(setting.name() + " must be between " + setting.allowed().replace("-", " and ")
            + " (got " + parsed + ")");
      }
      return parsed;
    }

    boolean bool(Setting setting) {
      Object value = raw(setting);
      if (value instanceof Boolean b) {
        return b;
      }
      return switch (String.valueOf(value).trim().toLowerCase(Locale.ROOT)) {
        case "true", "1", "yes" -> true;
        case "false", "0", "no" -> false;
        default -> throw new ConfigException(setting.name() + " must be true or false (got '" + value + "')");
      };
    }

    String string(Setting setting) {
      return String.valueOf(raw(setting)).trim();
    }

    Optional<String> optional(Setting setting) {
      Object value = raw(setting);
      if (value == null || String.valueOf(value).isBlank()) {
        return Optional.empty();
      }
      return Optional.of(String.valueOf(value).trim());
    }

    /** The chosen word, lower case; fails naming the choices. */
    String choice(Setting setting) {
      return optionalChoice(setting).orElseThrow(() -> new ConfigException(setting.name() + " must be set"));
    }

    Optional<String> optionalChoice(Setting setting) {
      Optional<String> value = optional(setting).map(s -> s.toLowerCase(Locale.ROOT));
      if (value.isPresent() && !setting.choices().contains(value.get())) {
        throw new ConfigException(setting.name() + " must be " + choices(setting.choices()) + " (got '"
            + optional(setting).get() + "')");
      }
      return value;
    }

    String url(Setting setting) {
      String value = string(setting);
      if (!value.matches("(?i)https?://[^\\s/]+.*")) {
        throw new ConfigException(setting.name() + " must be an http(s) URL (got '" + value + "')");
      }
      return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    /** A file setting; checked here so a wrong path stops start-up instead of failing every call later. */
    Optional<Path> file(Setting setting) {
      Optional<String> value = optional(setting);
      if (value.isEmpty()) {
        return Optional.empty();
      }
      ConfigException unreadable = new ConfigException(setting.name() + " '" + value.get() + "' is not a readable file");
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

    @SuppressWarnings("unchecked")
    List<String> list(Setting setting) {
      Object value = raw(setting);
      if (value instanceof String text && !text.isBlank()) {
        // a YAML string of only commas is the same mistake as such a variable
        return List.copyOf(items(setting.path(), text).getList());
      }
      return strings(value, (List<String>) setting.defaultValue());
    }

    JsonObject mapping(Setting setting) {
      Object value = raw(setting);
      if (value == null) {
        return new JsonObject();
      }
      if (value instanceof JsonObject obj) {
        return obj;
      }
      throw new ConfigException(setting.name() + " must be a mapping");
    }

    static List<String> strings(Object value, List<String> def) {
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
      if (value instanceof List<?> list) {
        return list.stream().map(String::valueOf).toList();
      }
      return List.copyOf(splitList(String.valueOf(value)).getList());
    }

    private static String choices(List<String> choices) {
      return String.join(", ", choices.subList(0, choices.size() - 1)) + " or " + choices.get(choices.size() - 1);
    }
  }

  /**
   * The comma-separated items of a list setting that is set: a value of only commas and spaces is
   * refused rather than read as an empty list, which for RAG_API_KEYS would serve without keys.
   * The value is not echoed (it may be a secret's).
   */
  private static JsonArray items(String name, String value) {
    JsonArray items = splitList(value);
    if (items.isEmpty()) {
      throw new ConfigException(name + " is set but names nothing (only commas and spaces): give the values"
          + " comma-separated, or leave it unset");
    }
    return items;
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

  /** A YAML syntax error as "line 3, column 5: <problem>"; anything else as its first line. */
  static String reason(Throwable err) {
    for (Throwable t = err; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof org.yaml.snakeyaml.error.MarkedYAMLException yaml && yaml.getProblemMark() != null) {
        var mark = yaml.getProblemMark();
        String problem = yaml.getProblem() == null ? "invalid YAML" : yaml.getProblem();
        String context = yaml.getContext() == null ? "" : " (" + yaml.getContext() + ")";
        return "invalid YAML at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ": "
            + problem + context;
      }
    }
    return firstLine(err);
  }

  private static String firstLine(Throwable err) {
    String message = String.valueOf(err.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
