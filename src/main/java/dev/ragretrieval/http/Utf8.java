package dev.ragretrieval.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Strict UTF-8: the JDK's decoder set to report, not replace, so overlong forms (C0 AF),
 * encoded surrogates (ED A0 80), 5- and 6-byte forms, code points above U+10FFFF and cut
 * sequences are all refused. Lenient decoders turn them into '/', '?' or U+FFFD, which would let a
 * request mean something other than what it says.
 */
final class Utf8 {

  private Utf8() {}

  static boolean valid(byte[] bytes) {
    if (ascii(bytes)) {
      // most bodies are plain ASCII: no decoder and no decoded copy for them
      return true;
    }
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

  private static boolean ascii(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }

  static boolean valid(Buffer buffer) {
    return valid(buffer.getBytes());
  }

  /**
   * True when every string in a decoded JSON value (keys included) is well-formed UTF-16: a JSON
   * escape such as {@code \ud800} can name a lone surrogate, which no UTF-8 can carry and which
   * would reach the embedder as '?'.
   */
  static boolean wellFormed(Object json) {
    if (json instanceof String text) {
      return wellFormed(text);
    }
    if (json instanceof JsonObject object) {
      for (Map.Entry<String, Object> field : object) {
        if (!wellFormed(field.getKey()) || !wellFormed(field.getValue())) {
          return false;
        }
      }
    } else if (json instanceof JsonArray array) {
      for (Object item : array) {
        if (!wellFormed(item)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean wellFormed(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
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
