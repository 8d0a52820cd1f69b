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
  private static final int LARGEST_BITS = Float.floatToRawIntBits(LARGEST);
  private static final int SMALLEST_LARGEST_BITS = Float.floatToRawIntBits(SMALLEST_LARGEST);

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
    return decodeArray(body, start, 0);
  }

  /**
   * As {@link #decodeArray(byte[], int)}, for vectors of {@code dimension} values: each string's
   * end is looked for first where such a vector's base64 ends. The decoder refuses any byte that
   * is not base64 (a quote, a backslash), so a string it decodes there ended there; otherwise the
   * string is scanned for its quote, as without a dimension. Scanning 5.5 KB a vector byte by byte
   * was 3% of the event loops' JFR samples for new questions.
   */
  static List<float[]> decodeArray(byte[] body, int start, int dimension) {
    Base64.Decoder base64 = Base64.getDecoder();
    int expected = dimension > 0 ? (dimension * Float.BYTES + 2) / 3 * 4 : -1;
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
      int to = expected > 0 ? from + expected : -1;
      float[] vector = to > 0 ? decodeEndingAt(base64, body, from, to) : null;
      if (vector == null) {
        to = closingQuote(body, from);
        if (to < 0) {
          return null;
        }
        vector = decode(base64.decode(ByteBuffer.wrap(body, from, to - from)));
      }
      vectors.add(vector);
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

  /** The vector of the string {@code body[from..to)} when {@code body[to]} closes it and it is all base64; else null. */
  private static float[] decodeEndingAt(Base64.Decoder base64, byte[] body, int from, int to) {
    if (to >= body.length || body[to] != '"') {
      return null;
    }
    ByteBuffer bytes;
    try {
      bytes = base64.decode(ByteBuffer.wrap(body, from, to - from));
    } catch (IllegalArgumentException notBase64) {
      return null; // a shorter string and what follows it, or an escape: scanned instead
    }
    return decode(bytes);
  }

  /** Where the string that starts at {@code from} ends (its quote); -1 when it holds an escape. */
  private static int closingQuote(byte[] body, int from) {
    for (int at = from; at < body.length; at++) {
      if (body[at] == '"') {
        return at;
      }
      if (body[at] == '\\') {
        return -1;
      }
    }
    throw new IllegalStateException("a base64 string is not closed");
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
    // compared as bits without the sign: those order as the magnitudes do, infinity above every
    // finite value and NaN above infinity; an int's max is one instruction, a float's (NaN, -0) is not
    int largest = 0;
    for (float value : vector) {
      largest = Math.max(largest, Float.floatToRawIntBits(value) & 0x7fffffff);
    }
    return largest <= LARGEST_BITS && (largest == 0 || largest >= SMALLEST_LARGEST_BITS);
  }
}
