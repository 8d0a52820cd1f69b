package dev.ragretrieval.embedding.cohere;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A vector sent as its float32s' bytes one after another (Cohere's {@code base64} embeddings,
 * once the base64 is decoded). Cohere does not say the byte order; it serves from numpy, whose
 * float32s are little-endian on every machine it runs on, so that is read first. A producer that
 * wrote Java's default (big-endian) would give numbers of wild size read that way, as would any
 * other order with a real vector: so a vector that is not {@link #plausible} is read big-endian
 * instead, and if neither order gives a plausible one, the bytes are not a vector.
 */
final class PackedFloats {

  /** No embedding holds a value this large: read in the wrong order, about half the values are larger. */
  private static final float LARGEST = 1e3f;
  /** Nor is its largest value this small: exact values such as 0.5 in the wrong order read as tiny subnormals. */
  private static final float SMALLEST_LARGEST = 1e-6f;

  private PackedFloats() {}

  /** The vector in {@code bytes}; an {@link IllegalStateException} when they hold none. */
  static float[] decode(byte[] bytes) {
    return decode(ByteBuffer.wrap(bytes));
  }

  /** The vector in the remaining bytes of {@code bytes}. */
  static float[] decode(ByteBuffer bytes) {
    if (bytes.remaining() % Float.BYTES != 0) {
      throw new IllegalStateException(bytes.remaining() + " bytes are not a whole number of float32s");
    }
    float[] little = read(bytes, ByteOrder.LITTLE_ENDIAN);
    if (plausible(little)) {
      return little;
    }
    float[] big = read(bytes, ByteOrder.BIG_ENDIAN);
    if (plausible(big)) {
      return big;
    }
    throw new IllegalStateException("the bytes give no plausible vector in either byte order");
  }

  /**
   * The vectors of the JSON array of base64 strings that starts at {@code body[start]} (its
   * {@code [}), decoded by the JDK's decoder straight from the body (Jackson's base64 reading,
   * byte by byte into a growing builder, cost as much as the decimal floats it replaced); null when
   * a string holds a JSON escape such as {@code \/}, which a JSON parser must read instead.
   */
  static List<float[]> decodeArray(byte[] body, int start) {
    Base64.Decoder base64 = Base64.getDecoder();
    List<float[]> vectors = new ArrayList<>();
    int at = skipSpace(body, start + 1);
    if (at < body.length && body[at] == ']') {
      return vectors;
    }
    while (true) {
      if (at >= body.length || body[at] != '"') {
        throw new IllegalStateException("embeddings.base64 must be an array of strings");
      }
      int from = at + 1;
      int to = from;
      while (to < body.length && body[to] != '"') {
        if (body[to] == '\\') {
          return null;
        }
        to++;
      }
      if (to == body.length) {
        throw new IllegalStateException("a base64 string is not closed");
      }
      vectors.add(decode(base64.decode(ByteBuffer.wrap(body, from, to - from))));
      at = skipSpace(body, to + 1);
      if (at < body.length && body[at] == ']') {
        return vectors;
      }
      if (at >= body.length || body[at] != ',') {
        throw new IllegalStateException("embeddings.base64 must be an array of strings");
      }
      at = skipSpace(body, at + 1);
    }
  }

  private static int skipSpace(byte[] body, int at) {
    while (at < body.length && (body[at] == ' ' || body[at] == '\n' || body[at] == '\r' || body[at] == '\t')) {
      at++;
    }
    return at;
  }

  private static float[] read(ByteBuffer bytes, ByteOrder order) {
    float[] vector = new float[bytes.remaining() / Float.BYTES];
    bytes.duplicate().order(order).asFloatBuffer().get(vector);
    return vector;
  }

  /** Every value finite and at most {@link #LARGEST}, and the largest not vanishingly small (unless all are 0). */
  static boolean plausible(float[] vector) {
    // one pass without a branch per value: Math.max carries a NaN through to the check below
    float largest = 0;
    for (float value : vector) {
      largest = Math.max(largest, Math.abs(value));
    }
    if (!(largest <= LARGEST)) { // NaN too
      return false;
    }
    return largest == 0 || largest >= SMALLEST_LARGEST;
  }
}
