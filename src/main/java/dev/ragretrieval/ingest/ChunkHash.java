package dev.ragretrieval.ingest;

import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The content hash an ingest stores with each chunk. Equal hashes mean the stored point is exactly
 * what this run would write: the same text sent to the embedder, the same embedding model, the
 * same chunker version, and the same payload (every field, so a changed label or source is written
 * too). A point whose hash matches is left as it is.
 */
public final class ChunkHash {

  /** The payload key holding the hash. */
  public static final String KEY = "content_hash";
  /** The payload key naming the model that embedded the chunk (so a changed model can be named). */
  public static final String MODEL_KEY = "embedding_model";
  /** The payload key holding {@link Chunker#version()}. */
  public static final String CHUNKER_KEY = "chunker_version";
  /**
   * The payload key holding the hash of the page a chunk was read from (its fingerprint, the
   * ingest source, the model and the chunker): equal on every stored chunk of a page, and their
   * number equal to {@link #PAGE_CHUNKS_KEY}, a re-ingest reuses them without reading the page.
   * Not part of the content hash, so an edit elsewhere on the page re-embeds no unchanged chunk.
   */
  public static final String PAGE_KEY = "page_hash";
  /** The payload key holding how many chunks the page had when {@link #PAGE_KEY} was written. */
  public static final String PAGE_CHUNKS_KEY = "page_chunks";

  private ChunkHash() {}

  /**
   * SHA-256 (hex) of the embedded text and the payload without {@link #KEY} and the page keys, its keys sorted so the
   * hash does not depend on their order. The payload must already carry the model and chunker keys.
   */
  public static String of(String embedText, JsonObject payload) {
    Map<String, Object> sorted = new TreeMap<>(payload.getMap());
    sorted.remove(KEY);
    sorted.remove(PAGE_KEY);
    sorted.remove(PAGE_CHUNKS_KEY);
    MessageDigest sha = sha();
    // a length prefix keeps the two parts apart whatever they contain
    byte[] text = embedText.getBytes(StandardCharsets.UTF_8);
    sha.update((text.length + ":").getBytes(StandardCharsets.UTF_8));
    sha.update(text);
    sha.update(new JsonObject(sorted).encode().getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(sha.digest());
  }

  /** SHA-256 (hex) of {@code text} in UTF-8. */
  public static String sha256(String text) {
    return HexFormat.of().formatHex(sha().digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static MessageDigest sha() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
