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

  private final Map<String, List<String>> keys;
  private final int maxTextChars;

  public PayloadMapper(AppConfig.Retrieval config) {
    this.keys = config.payloadKeys();
    this.maxTextChars = config.maxTextChars();
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
    String textKey = firstKey(payload, "text");
    String text = textKey == null ? null : string(payload.getValue(textKey));
    boolean truncated = text != null && text.length() > maxTextChars;
    if (truncated) {
      text = cut(text, maxTextChars);
      // the whole payload travels as metadata; the long text must not come back through it. A copy,
      // so the store's payload object stays as it was; untruncated payloads are never modified
      metadata = payload.copy().put(textKey, text);
    }
    String chunkId = string("chunk_id", payload);
    return new RetrievedChunk(
        rank,
        point.id(),
        chunkId != null ? chunkId : point.id(),
        text,
        score(point.score()),
        string("source_url", payload),
        string("page_title", payload),
        string("chapter", payload),
        string("section", payload),
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

  private String string(String field, JsonObject payload) {
    String key = firstKey(payload, field);
    return key == null ? null : string(payload.getValue(key));
  }

  private Integer integer(JsonObject payload) {
    String key = firstKey(payload, "chunk_index");
    Object value = key == null ? null : payload.getValue(key);
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

  private String firstKey(JsonObject payload, String field) {
    for (String key : keys.getOrDefault(field, List.of(field))) {
      if (payload.getValue(key) != null) {
        return key;
      }
    }
    return null;
  }

  private static String string(Object value) {
    if (value == null || value instanceof JsonObject || value instanceof JsonArray) {
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
