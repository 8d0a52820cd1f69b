package dev.ragretrieval.retrieval;

import dev.ragretrieval.search.CollectionName;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.SearchMode;
import io.vertx.core.MultiMap;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a retrieve request (a JSON body, or the query string of GET /v1/retrieve/stream) into a
 * {@link RetrievalRequest}: aliases resolved, defaults applied, every rule of docs/API.md section 4
 * checked. Failures are {@link ServiceException}s whose details name the offending field.
 */
public final class RequestParser {

  private static final List<String> QUERY_KEYS = List.of("query", "text", "query_text");
  private static final List<String> TOP_K_KEYS = List.of("top_k", "k");
  private static final List<String> THRESHOLD_KEYS = List.of("score_threshold", "similarity_threshold");
  private static final List<String> FILTER_KEYS = List.of("filter", "filters");
  /** Query-string parameters copied as strings ({@code q} is the short form of {@code query}). */
  private static final List<String> STRING_PARAMS = List.of("query", "text", "query_text", "q", "collection", "search_mode");
  private static final List<String> NUMBER_PARAMS =
      List.of("top_k", "k", "score_threshold", "similarity_threshold", "max_context_chars");
  /**
   * Every field a retrieve request may carry. An unknown field that is a near miss of one of these
   * ("topk", "score_treshold") is refused with the likely name; other unknown fields are ignored,
   * so a client may send fields of its own and newer clients still work with older servers.
   */
  static final List<String> KNOWN_FIELDS = List.of("query", "text", "query_text", "top_k", "k", "score_threshold",
      "similarity_threshold", "filter", "filters", "collection", "include_context", "max_context_chars",
      "search_mode");

  /** One slot of a batch: either a valid request or the reason it is not. */
  public record Slot(RetrievalRequest request, ServiceException error) {
    public boolean valid() {
      return request != null;
    }
  }

  private final AppConfig.Retrieval limits;
  private final AppConfig.Qdrant qdrant;

  public RequestParser(AppConfig.Retrieval limits, AppConfig.Qdrant qdrant) {
    this.limits = limits;
    this.qdrant = qdrant;
  }

  public RetrievalRequest parse(JsonObject body) {
    if (body == null) {
      throw invalid("the request body must be a JSON object", null);
    }
    checkNearMisses(body);
    String query = query(body);
    return new RetrievalRequest(
        query,
        topK(body),
        threshold(body),
        filterEcho(body),
        filter(body),
        collection(body.getValue("collection")),
        flag(body, "include_context"),
        maxContextChars(body),
        searchMode(body),
        null);
  }

  /** The query string of GET /v1/retrieve/stream, typed as the JSON body would be. */
  public RetrievalRequest parse(MultiMap params) {
    JsonObject body = new JsonObject();
    for (String key : STRING_PARAMS) {
      if (params.contains(key)) {
        body.put(key.equals("q") ? "query" : key, params.get(key));
      }
    }
    for (String key : NUMBER_PARAMS) {
      if (params.contains(key)) {
        body.put(key, number(params.get(key)));
      }
    }
    for (String key : FILTER_KEYS) {
      if (params.contains(key)) {
        body.put(key, json(key, params.get(key)));
      }
    }
    if (params.contains("context")) {
      body.put("include_context", bool("context", params.get("context")));
    }
    if (params.contains("include_context")) {
      body.put("include_context", bool("include_context", params.get("include_context")));
    }
    return parse(body);
  }

  /** {"queries": [...]}: the envelope must be right, each slot stands or falls alone. */
  public List<Slot> parseBatch(JsonObject body) {
    Object value = body == null ? null : body.getValue("queries");
    if (!(value instanceof JsonArray queries)) {
      throw invalid("'queries' must be an array of retrieve requests", field("queries"));
    }
    if (queries.isEmpty() || queries.size() > limits.maxBatchQueries()) {
      throw invalid("'queries' must hold between 1 and " + limits.maxBatchQueries() + " requests",
          field("queries").put("max", limits.maxBatchQueries()).put("got", queries.size()));
    }
    List<Slot> slots = new ArrayList<>(queries.size());
    for (int i = 0; i < queries.size(); i++) {
      Object item = queries.getValue(i);
      try {
        if (!(item instanceof JsonObject request)) {
          throw invalid("each query must be a JSON object", field("queries").put("index", i));
        }
        slots.add(new Slot(parse(request), null));
      } catch (ServiceException e) {
        slots.add(new Slot(null, e));
      }
    }
    return slots;
  }

  /**
   * A collection a request may name: any valid name unless QDRANT_COLLECTIONS restricts them.
   * Whether it exists is the store's to say (COLLECTION_NOT_FOUND).
   */
  public String collection(Object value) {
    if (value == null) {
      return qdrant.collection();
    }
    if (!(value instanceof String name) || !CollectionName.isValid(name)) {
      throw invalid("'collection' must be " + CollectionName.RULE, field("collection").put("rule", CollectionName.RULE));
    }
    if (!qdrant.allows(name)) {
      throw invalid("collection '" + name + "' is not allowed here: QDRANT_COLLECTIONS lists the collections this"
              + " service may search; add '" + name + "' to it (comma-separated), or unset it to allow every collection",
          field("collection").put("allowed", allowedCollections()).put("setting", "QDRANT_COLLECTIONS"));
    }
    return name;
  }

  /** Whether a request may name this collection (no allow-list = every collection). */
  public boolean allows(String collection) {
    return qdrant.allows(collection);
  }

  /** A payload key that may be filtered and faceted on. */
  public String filterKey(String key) {
    if (key == null || key.isBlank()) {
      throw invalid("'key' is required", field("key").put("allowed", new JsonArray(limits.filterKeys())));
    }
    if (!limits.filterKeys().contains(key)) {
      throw invalid("'" + key + "' is not a filterable payload key",
          field("key").put("allowed", new JsonArray(limits.filterKeys())));
    }
    return key;
  }

  private String query(JsonObject body) {
    String key = firstPresent(body, QUERY_KEYS);
    Object value = key == null ? null : body.getValue(key);
    if (value == null) {
      throw new ServiceException(ErrorCode.EMPTY_QUERY, "'query' is required", field("query"));
    }
    if (!(value instanceof String text)) {
      throw invalid("'" + key + "' must be a string", field(key));
    }
    String query = withoutControl(text).strip();
    if (invisible(query)) {
      throw new ServiceException(ErrorCode.EMPTY_QUERY, "'" + key + "' must not be blank", field(key));
    }
    int length = query.codePointCount(0, query.length());
    if (length > limits.maxQueryChars()) {
      throw new ServiceException(ErrorCode.QUERY_TOO_LONG,
          "'" + key + "' is " + length + " characters; the limit is " + limits.maxQueryChars(),
          field(key).put("max", limits.maxQueryChars()).put("length", length));
    }
    return query;
  }

  /**
   * {@code text} without control characters other than tab, line feed and carriage return. Most
   * questions have none and are returned as they are: a regex's pass over every question took 2%
   * of a cached answer's samples (bench/HISTORY.md, ninth pass).
   */
  private static String withoutControl(String text) {
    int i = 0;
    while (i < text.length() && !removable(text.charAt(i))) {
      i++;
    }
    if (i == text.length()) {
      return text;
    }
    StringBuilder kept = new StringBuilder(text.length()).append(text, 0, i);
    for (; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!removable(c)) {
        kept.append(c);
      }
    }
    return kept.toString();
  }

  /**
   * True when {@code query} shows nothing: empty, or only spaces that strip() keeps (no-break ones)
   * and zero-width format characters (U+200B, U+FEFF, joiners). Embedded, such a query matches
   * chunks at random. A question's first character usually ends the look.
   */
  private static boolean invisible(String query) {
    for (int i = 0; i < query.length(); ) {
      int c = query.codePointAt(i);
      int type = Character.getType(c);
      if (type != Character.FORMAT && type != Character.SPACE_SEPARATOR && !Character.isWhitespace(c)) {
        return false;
      }
      i += Character.charCount(c);
    }
    return true;
  }

  /** A control character other than tab and line breaks: a query of only these is blank. */
  private static boolean removable(char c) {
    return Character.getType(c) == Character.CONTROL && c != '\t' && c != '\n' && c != '\r';
  }

  /** Refuses a field that is not one of ours but nearly is: the client most likely misspelt it. */
  private static void checkNearMisses(JsonObject body) {
    for (String name : body.fieldNames()) {
      if (KNOWN_FIELDS.contains(name)) {
        continue;
      }
      String meant = nearMiss(name);
      if (meant != null) {
        throw invalid("unknown field '" + name + "'; did you mean '" + meant + "'?",
            field(name).put("suggestion", meant));
      }
    }
  }

  /** The known field {@code name} is a likely misspelling of, or null. */
  static String nearMiss(String name) {
    String folded = fold(name);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known : KNOWN_FIELDS) {
      if (fold(known).equals(folded)) {
        return known; // "topK", "top-k", "TOP_K"
      }
      int distance = distance(folded, fold(known));
      if (distance < bestDistance) {
        bestDistance = distance;
        best = known;
      }
    }
    // one edit ("colection"), two in long names ("scor_treshold"); short names are too often other words
    int shorter = Math.min(folded.length(), fold(best).length());
    int allowed = shorter >= 8 ? 2 : 1;
    return shorter >= 4 && bestDistance <= allowed ? best : null;
  }

  private static String fold(String name) {
    return name.toLowerCase(java.util.Locale.ROOT).replace("_", "").replace("-", "");
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
  private static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  private int topK(JsonObject body) {
    String key = firstPresent(body, TOP_K_KEYS);
    Object value = key == null ? null : body.getValue(key);
    if (value == null) {
      return limits.defaultTopK();
    }
    JsonObject details = field(key).put("min", 1).put("max", limits.maxTopK());
    Long whole = wholeNumber(value);
    if (whole == null) {
      throw new ServiceException(ErrorCode.INVALID_TOP_K, "'" + key + "' must be an integer", details);
    }
    if (whole >= 1 && whole <= limits.maxTopK()) {
      return whole.intValue();
    }
    if (limits.clampTopK()) {
      return (int) Math.max(1, Math.min(limits.maxTopK(), whole));
    }
    throw new ServiceException(ErrorCode.INVALID_TOP_K,
        "'" + key + "' must be between 1 and " + limits.maxTopK(), details);
  }

  private double threshold(JsonObject body) {
    String key = firstPresent(body, THRESHOLD_KEYS);
    Object value = key == null ? null : body.getValue(key);
    if (value == null) {
      return limits.defaultScoreThreshold();
    }
    JsonObject details = field(key).put("min", 0).put("max", 1);
    if (!(value instanceof Number number)) {
      throw new ServiceException(ErrorCode.INVALID_THRESHOLD, "'" + key + "' must be a number", details);
    }
    double threshold = number.doubleValue();
    if (!(threshold >= 0 && threshold <= 1)) {
      throw new ServiceException(ErrorCode.INVALID_THRESHOLD, "'" + key + "' must be between 0 and 1", details);
    }
    return threshold;
  }

  private JsonObject filterEcho(JsonObject body) {
    String key = firstPresent(body, FILTER_KEYS);
    Object value = key == null ? null : body.getValue(key);
    return value instanceof JsonObject filter ? filter.copy() : new JsonObject();
  }

  private Map<String, List<Object>> filter(JsonObject body) {
    String key = firstPresent(body, FILTER_KEYS);
    Object value = key == null ? null : body.getValue(key);
    if (value == null) {
      return Map.of();
    }
    if (!(value instanceof JsonObject filter)) {
      throw invalid("'" + key + "' must be an object of payload key -> value(s)", field(key));
    }
    Map<String, List<Object>> out = new LinkedHashMap<>();
    for (String payloadKey : filter.fieldNames()) {
      if (!limits.filterKeys().contains(payloadKey)) {
        throw invalid("cannot filter on '" + payloadKey + "'",
            field(key).put("key", payloadKey).put("allowed", new JsonArray(limits.filterKeys())));
      }
      out.put(payloadKey, filterValues(key, payloadKey, filter.getValue(payloadKey)));
    }
    return out;
  }

  private List<Object> filterValues(String key, String payloadKey, Object value) {
    JsonObject details = field(key).put("key", payloadKey);
    if (isScalar(value)) {
      return List.of(value);
    }
    if (value instanceof JsonArray array && !array.isEmpty()) {
      List<Object> values = new ArrayList<>(array.size());
      for (Object item : array) {
        if (!isScalar(item)) {
          throw invalid("filter values must be strings, numbers or booleans", details);
        }
        values.add(item);
      }
      return List.copyOf(values);
    }
    throw invalid("filter '" + payloadKey + "' must be a string, number, boolean or a non-empty array of them", details);
  }

  private boolean flag(JsonObject body, String key) {
    Object value = body.getValue(key);
    if (value == null) {
      return false;
    }
    if (!(value instanceof Boolean b)) {
      throw invalid("'" + key + "' must be true or false", field(key));
    }
    return b;
  }

  /** "dense" or "hybrid"; absent = the service's default (hybrid where the collection supports it). */
  private static SearchMode searchMode(JsonObject body) {
    Object value = body.getValue("search_mode");
    if (value == null) {
      return null;
    }
    return (value instanceof String s ? SearchMode.parse(s) : java.util.Optional.<SearchMode>empty())
        .orElseThrow(() -> invalid("'search_mode' must be \"dense\" or \"hybrid\"",
            field("search_mode").put("allowed", new JsonArray().add("dense").add("hybrid"))));
  }

  private int maxContextChars(JsonObject body) {
    Object value = body.getValue("max_context_chars");
    if (value == null) {
      return limits.maxContextChars();
    }
    Long whole = wholeNumber(value);
    if (whole == null || whole < 1 || whole > Integer.MAX_VALUE) {
      throw invalid("'max_context_chars' must be a positive integer", field("max_context_chars"));
    }
    return whole.intValue();
  }

  /** 5 and 5.0 are the same JSON number; 2.5, "5" and true are not integers. */
  private static Long wholeNumber(Object value) {
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof Number n) {
      double d = n.doubleValue();
      if (Double.isFinite(d) && d == Math.rint(d) && Math.abs(d) < 1e15) {
        return (long) d;
      }
    }
    return null;
  }

  private static boolean isScalar(Object value) {
    return value instanceof String || value instanceof Number || value instanceof Boolean;
  }

  private static String firstPresent(JsonObject body, List<String> keys) {
    for (String key : keys) {
      if (body.getValue(key) != null) {
        return key;
      }
    }
    return null;
  }

  /** Query-string numbers become JSON numbers; anything else stays a string and fails as a wrong type. */
  private static Object number(String raw) {
    String value = raw.trim();
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException notLong) {
      try {
        double d = Double.parseDouble(value);
        return Double.isFinite(d) ? d : raw;
      } catch (NumberFormatException notNumber) {
        return raw;
      }
    }
  }

  private static Object json(String key, String raw) {
    if (raw == null || raw.isBlank()) {
      return null;
    }
    try {
      return new JsonObject(raw);
    } catch (DecodeException | ClassCastException e) {
      throw invalid("'" + key + "' must be a URL-encoded JSON object", field(key));
    }
  }

  private static boolean bool(String key, String raw) {
    return switch (raw.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "1", "yes", "" -> true;
      case "false", "0", "no" -> false;
      default -> throw invalid("'" + key + "' must be true or false", field(key));
    };
  }

  private JsonArray allowedCollections() {
    JsonArray allowed = new JsonArray().add(qdrant.collection());
    qdrant.collections().stream().sorted().filter(c -> !c.equals(qdrant.collection())).forEach(allowed::add);
    return allowed;
  }

  private static JsonObject field(String name) {
    return new JsonObject().put("field", name);
  }

  private static ServiceException invalid(String message, JsonObject details) {
    return new ServiceException(ErrorCode.INVALID_REQUEST, message, details);
  }
}
