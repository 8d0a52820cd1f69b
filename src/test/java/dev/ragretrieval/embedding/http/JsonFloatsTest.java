package dev.ragretrieval.embedding.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("JsonFloats: a JSON number read as a float gives the float the JDK's parse gives")
class JsonFloatsTest {

  private static final JsonFactory JSON = new JsonFactory();

  /** Each number of {@code [a, b, ...]} read by JsonFloats. */
  private static float[] read(String array) throws IOException {
    try (JsonParser parser = JSON.createParser(array)) {
      assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
      List<Float> out = new ArrayList<>();
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        out.add(JsonFloats.read(parser));
      }
      float[] floats = new float[out.size()];
      for (int i = 0; i < floats.length; i++) {
        floats[i] = out.get(i);
      }
      return floats;
    }
  }

  private static void assertSameAsJdk(List<String> numbers) throws IOException {
    float[] read = read("[" + String.join(",", numbers) + "]");
    assertThat(read).hasSize(numbers.size());
    for (int i = 0; i < read.length; i++) {
      float expected = (float) Double.parseDouble(numbers.get(i));
      assertThat(Float.floatToRawIntBits(read[i])).as(numbers.get(i))
          .isEqualTo(Float.floatToRawIntBits(expected));
    }
  }

  @Test
  @DisplayName("the numbers Cohere prints: up to 9 significant digits, small ones with an exponent")
  void cohereNumbers() throws IOException {
    assertSameAsJdk(FloatSamples.cohere());
  }

  @Test
  @DisplayName("every float printed shortest, in both exponent styles, and random decimals of up to 17 digits")
  void randomNumbers() throws IOException {
    assertSameAsJdk(FloatSamples.random(19));
  }

  @Test
  @DisplayName("integers, long fractions and huge exponents take the parser's own way, with the same result")
  void outsideTheFastPath() throws IOException {
    assertSameAsJdk(FloatSamples.outsideTheFastPath());
  }
}
