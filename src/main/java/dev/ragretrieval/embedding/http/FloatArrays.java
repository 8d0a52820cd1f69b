package dev.ragretrieval.embedding.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An array of number arrays ({@code [[-0.016679477, 3.4526698e-05, ...], ...]}) read straight
 * from a JSON body's bytes into float vectors. Cohere's answer is mostly these numbers, a thousand
 * per text; through Jackson's tokenizer each was first copied into its text buffer and then read
 * again ({@link JsonFloats}). Here each number is read once, with the same arithmetic as
 * {@link JsonFloats} (digits times an exact power of ten, one rounding: the double
 * {@link Double#parseDouble} gives, then the float cast), and numbers outside that fast path go
 * through {@link Double#parseDouble} itself. The JSON number grammar is checked; anything else
 * is an {@link IllegalStateException}.
 */
final class FloatArrays {

  private static final int MAX_DIGITS = JsonFloats.MAX_DIGITS;

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
