package dev.ragretrieval.embedding.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
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
    for (int i = 0; i < read.length; i++) {
      float expected = (float) Double.parseDouble(numbers.get(i));
      assertThat(Float.floatToRawIntBits(read[i])).as(numbers.get(i))
          .isEqualTo(Float.floatToRawIntBits(expected));
    }
  }

  @Test
  @DisplayName("the numbers Cohere prints: up to 9 significant digits, small ones with an exponent")
  void cohereNumbers() throws IOException {
    assertSameAsJdk(List.of("-0.016679477", "0.04437256", "-1.2345678e-05", "3.4e-05", "1e-07", "0",
        "-0", "0.0", "-0.0", "1", "-1", "0.5", "7.006492e-46", "1.17549435E-38", "3.4028235e+38"));
  }

  @Test
  @DisplayName("every float printed shortest, in both exponent styles, and random decimals of up to 17 digits")
  void randomNumbers() throws IOException {
    SplittableRandom random = new SplittableRandom(19);
    List<String> numbers = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      float f = Float.intBitsToFloat(random.nextInt());
      if (Float.isNaN(f) || Float.isInfinite(f)) {
        continue;
      }
      numbers.add(Float.toString(f));
      numbers.add(Float.toString(f).replace("E-", "e-0").replace("E", "e+"));
      double d = (random.nextDouble() * 2 - 1) * Math.pow(10, random.nextInt(-12, 4));
      numbers.add(String.format(Locale.ROOT, "%." + random.nextInt(1, 17) + "g", d));
      numbers.add(Double.toString(d));
    }
    assertSameAsJdk(numbers);
  }

  @Test
  @DisplayName("integers, long fractions and huge exponents take the parser's own way, with the same result")
  void outsideTheFastPath() throws IOException {
    assertSameAsJdk(List.of("12345678901234567890", "0.12345678901234567890123", "1e300", "1e-300",
        "123456789012345678e-30", "42", "-7", "100000000000000000000000"));
  }
}
