package dev.ragretrieval.ingest;

import java.util.List;

/**
 * One source page split at its headings. {@code sourceUrl} is the stable identity of the page
 * (a URL, or a path relative to the ingested folder); nullable fields are absent in the payload.
 */
public record Page(
    String sourceUrl,
    String documentId,
    String pageTitle,
    String chapter,
    String chapterLabel,
    String sourceType,
    List<Section> sections) {

  public Page {
    sections = List.copyOf(sections);
  }

  /**
   * The text under one heading ({@code heading} null for text before the first heading).
   * {@code parent} is the heading of the section it sits in (the h2 above an h3), or null.
   */
  public record Section(String heading, String parent, String text) {
    public Section(String heading, String text) {
      this(heading, null, text);
    }
  }
}
