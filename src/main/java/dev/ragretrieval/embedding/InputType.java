package dev.ragretrieval.embedding;

/** Cohere's input_type: queries and documents are embedded differently. */
public enum InputType {
  SEARCH_QUERY("search_query"),
  SEARCH_DOCUMENT("search_document");

  private final String wireName;

  InputType(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }
}
