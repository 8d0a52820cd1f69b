package dev.ragretrieval.embedding.cohere;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

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
    if (bytes.length % Float.BYTES != 0) {
      throw new IllegalStateException(bytes.length + " bytes are not a whole number of float32s");
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

  private static float[] read(byte[] bytes, ByteOrder order) {
    float[] vector = new float[bytes.length / Float.BYTES];
    ByteBuffer.wrap(bytes).order(order).asFloatBuffer().get(vector);
    return vector;
  }

  /** Every value finite and at most {@link #LARGEST}, and the largest not vanishingly small (unless all are 0). */
  static boolean plausible(float[] vector) {
    float largest = 0;
    for (float value : vector) {
      float size = Math.abs(value);
      if (!(size <= LARGEST)) { // NaN too
        return false;
      }
      largest = Math.max(largest, size);
    }
    return largest == 0 || largest >= SMALLEST_LARGEST;
  }
}
