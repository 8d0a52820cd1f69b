package dev.ragretrieval.embedding.http;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

/**
 * A JSON number token read as a float straight from the parser's characters: no String, no
 * boxing. An embedding answer holds a thousand numbers per text like {@code -0.016679477} or
 * {@code -1.2345678e-05}; each is its digits (at most 15, so exact in a double) times a power of
 * ten (at most 22, so exact too), and one multiplication or division of two exact doubles rounds
 * once: the double {@link Double#parseDouble} gives (Clinger's fast path). That double is then
 * rounded to float, as the parsed tree's doubles were. Numbers outside the fast path (more
 * digits, larger exponents) go through the parser's own conversion.
 */
final class JsonFloats {

  private static final double[] POWERS_OF_TEN = {
      1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  static final int MAX_DIGITS = 15;

  private JsonFloats() {}

  /** The current token, a VALUE_NUMBER_INT or VALUE_NUMBER_FLOAT, as a float. */
  static float read(JsonParser parser) throws IOException {
    char[] text = parser.getTextCharacters();
    int at = parser.getTextOffset();
    int end = at + parser.getTextLength();
    boolean negative = at < end && text[at] == '-';
    if (negative) {
      at++;
    }
    long digits = 0;
    int significant = 0;
    int scale = 0; // the power of ten the digits are multiplied by
    boolean fraction = false;
    for (; at < end; at++) {
      char c = text[at];
      if (c >= '0' && c <= '9') {
        if (digits == 0 && c == '0') {
          // a leading zero adds no significant digit, but in the fraction it still moves the point
        } else if (++significant > MAX_DIGITS) {
          return (float) parser.getDoubleValue();
        } else {
          digits = digits * 10 + (c - '0');
        }
        if (fraction) {
          scale--;
        }
      } else if (c == '.') {
        fraction = true;
      } else if (c == 'e' || c == 'E') {
        break;
      } else {
        return (float) parser.getDoubleValue();
      }
    }
    if (at < end) {
      // the exponent: Jackson has checked its syntax ([eE][+-]?[0-9]+)
      at++;
      boolean down = text[at] == '-';
      if (text[at] == '-' || text[at] == '+') {
        at++;
      }
      int exponent = 0;
      for (; at < end; at++) {
        exponent = exponent * 10 + (text[at] - '0');
        if (exponent > 400) {
          return (float) parser.getDoubleValue();
        }
      }
      scale += down ? -exponent : exponent;
    }
    double value = exact(digits, scale);
    if (Double.isNaN(value)) {
      return (float) parser.getDoubleValue();
    }
    return (float) (negative ? -value : value);
  }

  /**
   * {@code digits} (at most {@link #MAX_DIGITS} of them) times ten to the {@code scale}, rounded
   * once, where both are exact doubles; NaN outside that fast path, where the caller parses the
   * number's text itself. {@link FloatArrays} shares it.
   */
  static double exact(long digits, int scale) {
    if (digits == 0) {
      return 0;
    } else if (scale >= 0 && scale < POWERS_OF_TEN.length) {
      return digits * POWERS_OF_TEN[scale];
    } else if (scale < 0 && -scale < POWERS_OF_TEN.length) {
      return digits / POWERS_OF_TEN[-scale];
    }
    return Double.NaN;
  }
}
