package dev.ragretrieval.http;

import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8: the JDK's decoder set to report, not replace, so overlong forms (C0 AF),
 * encoded surrogates (ED A0 80), 5- and 6-byte forms, code points above U+10FFFF and cut
 * sequences are all refused. Lenient decoders turn them into '/', '?' or U+FFFD, which would let a
 * request mean something other than what it says.
 */
final class Utf8 {

  private Utf8() {}

  static boolean valid(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  static boolean valid(Buffer buffer) {
    return valid(buffer.getBytes());
  }

  /**
   * Why a request target is refused, or null when it is fine: every byte it percent-encodes must
   * form UTF-8, every escape must be complete, and non-ASCII characters must be percent-encoded
   * (RFC 3986; raw bytes on the request line are not decoded as UTF-8 by the server).
   */
  static String uriProblem(String uri) {
    byte[] bytes = new byte[uri.length()];
    int n = 0;
    for (int i = 0; i < uri.length(); i++) {
      char c = uri.charAt(i);
      if (c == '%') {
        if (i + 2 >= uri.length() || Character.digit(uri.charAt(i + 1), 16) < 0 || Character.digit(uri.charAt(i + 2), 16) < 0) {
          return "the URI has an incomplete percent-encoding ('%' must be followed by two hex digits)";
        }
        bytes[n++] = (byte) Integer.parseInt(uri, i + 1, i + 3, 16);
        i += 2;
      } else if (c > 0x7E || c < 0x20) {
        return "the URI has characters that are not percent-encoded; encode them as UTF-8 with %XX";
      } else {
        bytes[n++] = (byte) c;
      }
    }
    return valid(java.util.Arrays.copyOf(bytes, n)) ? null : "the URI percent-encodes bytes that are not valid UTF-8";
  }
}
