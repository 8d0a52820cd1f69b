package dev.ragretrieval.retrieval;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.search.ScoredPoint;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads result fields from payloads written by different tools (docs/API.md section 3): each field
 * from the first configured key present. Absent fields stay null; nothing is invented.
 */
public final class PayloadMapper {

  // each field's keys, in the configured order, looked up once here rather than per chunk
  private final String[] textKeys;
  private final String[] chunkIdKeys;
  private final String[] sourceUrlKeys;
  private final String[] pageTitleKeys;
  private final String[] chapterKeys;
  private final String[] sectionKeys;
  private final String[] chunkIndexKeys;
  private final int maxTextChars;

  public PayloadMapper(AppConfig.Retrieval config) {
    Map<String, List<String>> keys = config.payloadKeys();
    this.textKeys = keys(keys, "text");
    this.chunkIdKeys = keys(keys, "chunk_id");
    this.sourceUrlKeys = keys(keys, "source_url");
    this.pageTitleKeys = keys(keys, "page_title");
    this.chapterKeys = keys(keys, "chapter");
    this.sectionKeys = keys(keys, "section");
    this.chunkIndexKeys = keys(keys, "chunk_index");
    this.maxTextChars = config.maxTextChars();
  }

  private static String[] keys(Map<String, List<String>> keys, String field) {
    return keys.getOrDefault(field, List.of(field)).toArray(String[]::new);
  }

  /** Hits in store order (best first) become ranks 1..n. */
  public List<RetrievedChunk> map(List<ScoredPoint> points) {
    List<RetrievedChunk> chunks = new ArrayList<>(points.size());
    for (int i = 0; i < points.size(); i++) {
      chunks.add(map(i + 1, points.get(i)));
    }
    return List.copyOf(chunks);
  }

  public RetrievedChunk map(int rank, ScoredPoint point) {
    JsonObject payload = point.payload() == null ? new JsonObject() : point.payload();
    JsonObject metadata = payload;
    String textKey = firstKey(payload, textKeys);
    String text = textKey == null ? null : string(payload.getValue(textKey));
    boolean truncated = text != null && text.length() > maxTextChars;
    if (truncated) {
      text = cut(text, maxTextChars);
      // the whole payload travels as metadata; the long text must not come back through it. A copy,
      // so the store's payload object stays as it was; untruncated payloads are never modified
      metadata = payload.copy().put(textKey, text);
    }
    String chunkId = string(chunkIdKeys, payload);
    return new RetrievedChunk(
        rank,
        point.id(),
        chunkId != null ? chunkId : point.id(),
        text,
        score(point.score()),
        string(sourceUrlKeys, payload),
        string(pageTitleKeys, payload),
        string(chapterKeys, payload),
        string(sectionKeys, payload),
        integer(payload),
        metadata,
        truncated);
  }

  /**
   * The float Qdrant sends, as the shortest decimal that reads back to it: 0.89f is shown as 0.89,
   * not 0.8899999856948853.
   */
  public static double score(float score) {
    return Double.parseDouble(Float.toString(score));
  }

  private static String string(String[] keys, JsonObject payload) {
    return string(first(payload, keys));
  }

  private Integer integer(JsonObject payload) {
    Object value = first(payload, chunkIndexKeys);
    if (value instanceof Number n) {
      return n.intValue();
    }
    if (value instanceof String s) {
      try {
        return Integer.parseInt(s.trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  private static String firstKey(JsonObject payload, String[] keys) {
    Map<String, Object> fields = payload.getMap();
    for (String key : keys) {
      if (fields.get(key) != null) {
        return key;
      }
    }
    return null;
  }

  /** The value of the first key present, as stored (objects and arrays unwrapped). */
  private static Object first(JsonObject payload, String[] keys) {
    Map<String, Object> fields = payload.getMap();
    for (String key : keys) {
      Object value = fields.get(key);
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  private static String string(Object value) {
    if (value == null || value instanceof JsonObject || value instanceof JsonArray || value instanceof Map
        || value instanceof List) {
      return null;
    }
    return String.valueOf(value);
  }

  /** Cuts at a character boundary, never between the halves of a surrogate pair. */
  private static String cut(String text, int max) {
    int end = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
    return text.substring(0, end);
  }
}
