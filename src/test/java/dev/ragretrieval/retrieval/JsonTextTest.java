package dev.ragretrieval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("JsonText: chunk texts escaped into the same bytes as Jackson's encoder")
class JsonTextTest {

  private static byte[] jackson(String text) {
    return JsonStringEncoder.getInstance().quoteAsUTF8(text);
  }

  @Test
  @DisplayName("every control character, quotes, backslashes, DEL, non-ASCII and surrogate pairs")
  void sameAsJackson() {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      all.append(c);
    }
    String[] texts = {"", "plain text", all.toString(), "say \"hi\"\n\tC:\\path", "café – naïve — 東京 😀 𝄞",
        "line one\r\nline two\fpage\bback", "\u2028\u2029\u00a0\u007f"};
    for (String text : texts) {
      assertThat(JsonText.escape(text)).as(text).isEqualTo(jackson(text));
    }
    // a text with nothing to escape comes back as its UTF-8
    assertThat(JsonText.escape("plain text")).isEqualTo("plain text".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("random texts of ASCII, Latin-1, other planes and control characters")
  void randomTexts() {
    Random random = new Random(19);
    String pool = "abc XYZ 019\"\\\n\r\t\b\f\u0000\u0001\u001f\u007f\u00e9\u00ff\u0100\u20ac\u4e2d";
    for (int n = 0; n < 2000; n++) {
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(200);
      for (int i = 0; i < length; i++) {
        if (random.nextInt(20) == 0) {
          text.appendCodePoint(0x1F600 + random.nextInt(80)); // a surrogate pair
        } else {
          text.append(pool.charAt(random.nextInt(pool.length())));
        }
      }
      assertThat(JsonText.escape(text.toString())).isEqualTo(jackson(text.toString()));
    }
  }
}
