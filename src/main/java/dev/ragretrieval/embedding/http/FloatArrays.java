package dev.ragretrieval.embedding.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An array of number arrays ({@code [[-0.016679477, 3.4526698e-05, ...], ...]}) read straight
 * from a JSON body's bytes into float vectors. Cohere's answer is mostly these numbers, a thousand
 * per text; through Jackson's tokenizer each was first copied into its text buffer and then read
 * again ({@link JsonFloats}). Here each number is read once (a fraction's digits eight bytes at a
 * time, bench/HISTORY.md, fortieth pass), with the same arithmetic as
 * {@link JsonFloats} (digits times an exact power of ten, one rounding: the double
 * {@link Double#parseDouble} gives, then the float cast), and numbers outside that fast path go
 * through {@link Double#parseDouble} itself. The JSON number grammar is checked; anything else
 * is an {@link IllegalStateException}.
 */
final class FloatArrays {

  private static final int MAX_DIGITS = JsonFloats.MAX_DIGITS;
  /** Eight bytes of the body as one long, the first in its lowest byte. */
  private static final VarHandle EIGHT_BYTES = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final byte[] json;
  private int at;

  private FloatArrays(byte[] json, int at) {
    this.json = json;
    this.at = at;
  }

  /**
   * The vectors of the array whose {@code [} is at {@code start}; each is expected to have
   * {@code dimension} numbers (a vector of another size is read whole and left to the caller's
   * check). The bytes after the array are not read.
   */
  static List<float[]> read(byte[] json, int start, int dimension) {
    return new FloatArrays(json, start).vectors(dimension);
  }

  private List<float[]> vectors(int dimension) {
    expect('[');
    List<float[]> vectors = new ArrayList<>();
    if (peek() == ']') {
      at++;
      return vectors;
    }
    while (true) {
      vectors.add(vector(dimension));
      byte next = next();
      if (next == ']') {
        return vectors;
      }
      if (next != ',') {
        throw malformed("',' or ']' after a vector");
      }
    }
  }

  private float[] vector(int dimension) {
    expect('[');
    float[] vector = new float[Math.max(dimension, 1)];
    int size = 0;
    if (peek() == ']') {
      at++;
      return new float[0];
    }
    while (true) {
      if (size == vector.length) {
        vector = Arrays.copyOf(vector, size * 2);
      }
      skipSpace();
      vector[size++] = number();
      byte next = next();
      if (next == ']') {
        return size == vector.length ? vector : Arrays.copyOf(vector, size);
      }
      if (next != ',') {
        throw malformed("',' or ']' after a number");
      }
    }
  }

  /** One JSON number at {@link #at}: {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}. */
  private float number() {
    int start = at;
    boolean negative = at < json.length && json[at] == '-';
    if (negative) {
      at++;
    }
    long digits = 0;
    int significant = 0;
    int scale = 0; // the power of ten the digits are multiplied by
    boolean exact = true;
    if (at < json.length && json[at] == '0') {
      at++;
    } else if (at < json.length && isDigit(json[at])) {
      while (at < json.length && isDigit(json[at])) {
        if (++significant > MAX_DIGITS) {
          exact = false;
        } else {
          digits = digits * 10 + (json[at] - '0');
        }
        at++;
      }
    } else {
      throw malformed("a number");
    }
    if (at < json.length && json[at] == '.') {
      at++;
      int first = at;
      // eight fraction digits at a time while they last (Cohere's -0.016679477 has nine); leading
      // zeros count as significant here, so the limit comes sooner, never later
      while (at + 8 <= json.length && significant + 8 <= MAX_DIGITS) {
        long eight = (long) EIGHT_BYTES.get(json, at);
        if (!eightDigits(eight)) {
          break;
        }
        digits = digits * 100_000_000L + eightDigitsValue(eight);
        significant += 8;
        scale -= 8;
        at += 8;
      }
      while (at < json.length && isDigit(json[at])) {
        byte c = json[at++];
        if (digits == 0 && c == '0') {
          scale--; // a leading zero of the fraction moves the point, adds no digit
        } else if (++significant > MAX_DIGITS) {
          exact = false;
        } else {
          digits = digits * 10 + (c - '0');
          scale--;
        }
      }
      if (at == first) {
        throw malformed("digits after '.'");
      }
    }
    if (at < json.length && (json[at] == 'e' || json[at] == 'E')) {
      at++;
      boolean down = at < json.length && json[at] == '-';
      if (at < json.length && (json[at] == '-' || json[at] == '+')) {
        at++;
      }
      int first = at;
      int exponent = 0;
      while (at < json.length && isDigit(json[at])) {
        if (exponent < 10_000) {
          exponent = exponent * 10 + (json[at] - '0');
        }
        at++;
      }
      if (at == first) {
        throw malformed("digits in the exponent");
      }
      scale += down ? -exponent : exponent;
    }
    double value = exact ? JsonFloats.exact(digits, scale) : Double.NaN;
    if (Double.isNaN(value)) {
      return (float) Double.parseDouble(new String(json, start, at - start, StandardCharsets.ISO_8859_1));
    }
    return (float) (negative ? -value : value);
  }

  /** Whether all eight bytes are ASCII digits: each byte's high nibble is 3, and adding 6 keeps it 3. */
  private static boolean eightDigits(long eight) {
    return ((eight & 0xF0F0F0F0F0F0F0F0L) | (((eight + 0x0606060606060606L) & 0xF0F0F0F0F0F0F0F0L) >>> 4))
        == 0x3333333333333333L;
  }

  /**
   * The number eight digit bytes write (the first the most significant): pairs of digits, then
   * pairs of pairs, with three multiplications instead of eight steps.
   */
  private static long eightDigitsValue(long eight) {
    long v = eight - 0x3030303030303030L;
    v = v * 10 + (v >>> 8);
    return ((v & 0x000000FF000000FFL) * (100 + (1_000_000L << 32))
        + ((v >>> 16) & 0x000000FF000000FFL) * (1 + (10_000L << 32))) >>> 32;
  }

  private static boolean isDigit(byte c) {
    return c >= '0' && c <= '9';
  }

  private void expect(char c) {
    if (next() != c) {
      throw malformed("'" + c + "'");
    }
  }

  /** The next byte that is not JSON white space, consumed. */
  private byte next() {
    skipSpace();
    if (at >= json.length) {
      throw malformed("more of the array");
    }
    return json[at++];
  }

  /** The next byte that is not JSON white space, left in place. */
  private byte peek() {
    skipSpace();
    if (at >= json.length) {
      throw malformed("more of the array");
    }
    return json[at];
  }

  private void skipSpace() {
    while (at < json.length && (json[at] == ' ' || json[at] == '\n' || json[at] == '\r' || json[at] == '\t')) {
      at++;
    }
  }

  private IllegalStateException malformed(String expected) {
    return new IllegalStateException("expected " + expected + " at byte " + at);
  }
}
