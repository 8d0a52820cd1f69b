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
  /** By byte: 0 = copied as it is; else the letter after the backslash ('u' for the six-character form). */
  private static final byte[] ESCAPE = new byte[256];
  /** By byte: how many more bytes its escape takes than the byte itself. */
  private static final int[] EXTRA = new int[256];

  static {
    for (int b = 0; b < 0x20; b++) {
      ESCAPE[b] = 'u';
    }
    ESCAPE['"'] = '"';
    ESCAPE['\\'] = '\\';
    ESCAPE['\b'] = 'b';
    ESCAPE['\t'] = 't';
    ESCAPE['\n'] = 'n';
    ESCAPE['\f'] = 'f';
    ESCAPE['\r'] = 'r';
    for (int b = 0; b < 256; b++) {
      EXTRA[b] = ESCAPE[b] == 0 ? 0 : ESCAPE[b] == 'u' ? 5 : 1;
    }
  }

  private JsonText() {}

  static byte[] escape(String text) {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    int extra = 0;
    for (byte b : utf8) {
      extra += EXTRA[b & 0xFF];
    }
    if (extra == 0) {
      return utf8;
    }
    byte[] out = new byte[utf8.length + extra];
    int at = 0;
    for (byte b : utf8) {
      byte escape = ESCAPE[b & 0xFF];
      if (escape == 0) {
        out[at++] = b;
      } else {
        out[at++] = '\\';
        out[at++] = escape;
        if (escape == 'u') {
          out[at++] = '0';
          out[at++] = '0';
          out[at++] = HEX[b >> 4];
          out[at++] = HEX[b & 0xF];
        }
      }
    }
    return out;
  }
}
