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

  private ChunkHash() {}

  /**
   * SHA-256 (hex) of the embedded text and the payload without {@link #KEY}, its keys sorted so the
   * hash does not depend on their order. The payload must already carry the model and chunker keys.
   */
  public static String of(String embedText, JsonObject payload) {
    Map<String, Object> sorted = new TreeMap<>(payload.getMap());
    sorted.remove(KEY);
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    // a length prefix keeps the two parts apart whatever they contain
    byte[] text = embedText.getBytes(StandardCharsets.UTF_8);
    sha.update((text.length + ":").getBytes(StandardCharsets.UTF_8));
    sha.update(text);
    sha.update(new JsonObject(sorted).encode().getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(sha.digest());
  }
}
