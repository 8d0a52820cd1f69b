package dev.ragretrieval.search;

import java.util.Locale;
import java.util.Optional;

/**
 * How a search ranks: {@code DENSE} by the cosine of the query vector alone, {@code HYBRID} by
 * reciprocal rank fusion of that list and a keyword (BM25) list over the same points.
 */
public enum SearchMode {
  DENSE, HYBRID;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** "dense" or "hybrid" in any case; anything else is empty. */
  public static Optional<SearchMode> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "dense" -> Optional.of(DENSE);
      case "hybrid" -> Optional.of(HYBRID);
      default -> Optional.empty();
    };
  }
}
