package dev.ragretrieval.retrieval;

import java.nio.charset.StandardCharsets;

/**
 * A string's content escaped for JSON, as UTF-8 bytes: the same bytes as Jackson's
 * {@code JsonStringEncoder.quoteAsUTF8} (quotes, backslashes and control characters escaped,
 * {@code \b \t \n \f \r} short, the others as six-character {@code \\u} escapes; everything else as its UTF-8). The
 * chunk texts are most of an answer's bytes, and Jackson's encoder goes character by character;
 * this lets the JDK's intrinsified UTF-8 encoding do the work and then only looks for the few bytes
 * to escape. A lone surrogate (which no text read from UTF-8 holds) becomes {@code ?}.
 */
final class JsonText {

  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  private JsonText() {}

  static byte[] escape(String text) {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    int extra = 0;
    for (byte b : utf8) {
      if (b == '"' || b == '\\' || (b >= 0 && b < 0x20)) {
        extra += shortEscape(b) != 0 ? 1 : 5;
      }
    }
    if (extra == 0) {
      return utf8;
    }
    byte[] out = new byte[utf8.length + extra];
    int at = 0;
    for (byte b : utf8) {
      if (b == '"' || b == '\\' || (b >= 0 && b < 0x20)) {
        out[at++] = '\\';
        byte named = shortEscape(b);
        if (named != 0) {
          out[at++] = named;
        } else {
          out[at++] = 'u';
          out[at++] = '0';
          out[at++] = '0';
          out[at++] = HEX[b >> 4];
          out[at++] = HEX[b & 0xF];
        }
      } else {
        out[at++] = b;
      }
    }
    return out;
  }

  /** The letter after the backslash, or 0 where the escape is a six-character {@code \\u} one. */
  private static byte shortEscape(byte b) {
    return switch (b) {
      case '"' -> '"';
      case '\\' -> '\\';
      case '\b' -> 'b';
      case '\t' -> 't';
      case '\n' -> 'n';
      case '\f' -> 'f';
      case '\r' -> 'r';
      default -> 0;
    };
  }
}
