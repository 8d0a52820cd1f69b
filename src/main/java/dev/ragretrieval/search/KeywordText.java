package dev.ragretrieval.search;

import io.vertx.core.json.JsonObject;

/**
 * The text a chunk's keyword (BM25) index holds: its page title, section and text, so a query
 * naming a page or section finds its chunks too. Both stores build it from the canonical payload
 * keys (API.md section 3), with the same fallbacks the result mapping uses for text.
 */
public final class KeywordText {

  private static final String[] TITLE = {"page_title", "title", "document_title"};
  private static final String[] SECTION = {"section", "section_title"};
  private static final String[] TEXT = {"text", "raw_text", "content", "chunk_text"};

  private KeywordText() {}

  public static String of(JsonObject payload) {
    if (payload == null) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    for (String[] keys : new String[][] {TITLE, SECTION, TEXT}) {
      String value = first(payload, keys);
      if (value != null && !value.isBlank()) {
        if (out.length() > 0) {
          out.append('\n');
        }
        out.append(value);
      }
    }
    return out.toString();
  }

  private static String first(JsonObject payload, String[] keys) {
    for (String key : keys) {
      if (payload.getValue(key) instanceof String s) {
        return s;
      }
    }
    return null;
  }
}
