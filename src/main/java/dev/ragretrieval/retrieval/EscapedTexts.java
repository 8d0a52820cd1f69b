package dev.ragretrieval.retrieval;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Chunk texts escaped for JSON (UTF-8, as the generator escapes), kept by point id. A book has a
 * few thousand chunks and every answer carries five of them, so the same texts go out again and
 * again for different questions; escaping one took about 2 µs, 7.7% of the event loops' JFR
 * samples for new questions (bench/HISTORY.md, seventh pass). A kept text is used only when it
 * equals the chunk's text now (one comparison of the two strings), so a payload changed in the
 * store, a truncated text or another collection's point with the same id is escaped anew.
 */
final class EscapedTexts {

  /** What the kept bytes may weigh: the texts of about ten thousand 1.2 KB chunks, twice (string and bytes). */
  static final long MAX_BYTES = 32L * 1024 * 1024;

  private static final JsonStringEncoder ESCAPER = JsonStringEncoder.getInstance();

  private final Cache<String, Escaped> byPoint;

  EscapedTexts(long maxBytes) {
    this.byPoint = Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher((String id, Escaped escaped) -> escaped.bytes().length + 2 * escaped.text().length())
        // upkeep (eviction) on the caller's event loop: handing it to the common pool cost a thread wake-up
        .executor(Runnable::run)
        .build();
  }

  /** {@code text} (of the point {@code pointId}, which may be null) escaped for a JSON string, in UTF-8. */
  byte[] of(String pointId, String text) {
    if (pointId == null) {
      return ESCAPER.quoteAsUTF8(text);
    }
    Escaped kept = byPoint.getIfPresent(pointId);
    if (kept != null && kept.text().equals(text)) {
      return kept.bytes();
    }
    byte[] bytes = ESCAPER.quoteAsUTF8(text);
    byPoint.put(pointId, new Escaped(text, bytes));
    return bytes;
  }

  /** What the kept texts weigh now (as {@link #MAX_BYTES} counts). */
  long weight() {
    byPoint.cleanUp();
    return byPoint.policy().eviction().orElseThrow().weightedSize().orElse(0);
  }

  /** The bytes are shared by every answer that carries the text: written, never changed. */
  private record Escaped(String text, byte[] bytes) {}
}
