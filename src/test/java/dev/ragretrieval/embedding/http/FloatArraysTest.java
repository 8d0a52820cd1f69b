package dev.ragretrieval.embedding.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("FloatArrays: vectors read from a JSON body's bytes are the floats the JDK's parse gives")
class FloatArraysTest {

  private static List<float[]> read(String json, int start, int dimension) {
    return FloatArrays.read(json.getBytes(StandardCharsets.UTF_8), start, dimension);
  }

  private static void assertSameAsJdk(List<String> numbers) {
    List<float[]> read = read("[[" + String.join(",", numbers) + "]]", 0, numbers.size());
    assertThat(read).hasSize(1);
    float[] vector = read.get(0);
    assertThat(vector).hasSize(numbers.size());
    for (int i = 0; i < vector.length; i++) {
      float expected = (float) Double.parseDouble(numbers.get(i));
      assertThat(Float.floatToRawIntBits(vector[i])).as(numbers.get(i))
          .isEqualTo(Float.floatToRawIntBits(expected));
    }
  }

  @Test
  @DisplayName("the numbers Cohere prints: up to 9 significant digits, small ones with an exponent")
  void cohereNumbers() {
    assertSameAsJdk(FloatSamples.cohere());
  }

  @Test
  @DisplayName("every float printed shortest, in both exponent styles, and random decimals of up to 17 digits")
  void randomNumbers() {
    assertSameAsJdk(FloatSamples.random(20));
  }

  @Test
  @DisplayName("fraction digits read eight at a time: 7 to 17 of them, leading zeros, an exponent or the array's end"
      + " right after them, a non-digit at each of the eight places")
  void eightDigitsAtATime() {
    List<String> numbers = new ArrayList<>(List.of("0.1234567", "0.12345678", "-0.016679477", "0.123456789",
        "0.00000000123456789", "0.1234567812345678", "0.12345678123456789", "9.87654321e-05", "1.23456789E+3",
        "0.99999999", "0.000000001", "0.00000000", "3.12345678e0", "0.12345678"));
    for (int place = 0; place < 8; place++) {
      // "0.1234567e-3" with the exponent moved into each of the eight bytes read at once
      numbers.add("0." + "12345678".substring(0, place) + "e-3");
    }
    numbers.removeIf(n -> n.equals("0.e-3"));
    assertSameAsJdk(numbers);
    assertThatThrownBy(() -> read("[[0.1234x678]]", 0, 1)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  @DisplayName("integers, long fractions and huge exponents take the JDK's own way")
  void outsideTheFastPath() {
    assertSameAsJdk(FloatSamples.outsideTheFastPath());
  }

  @Test
  @DisplayName("several vectors with white space, read from where the array starts; what follows it is not read")
  void severalVectorsInABody() {
    String body = "{\"embeddings\":{\"float\": [ [0.5 , -1e-3]\n,\r\n\t[ 2 ,3.25 ] ] }, \"texts\": [\"a\"], not json";
    List<float[]> vectors = read(body, body.indexOf('['), 2);
    assertThat(vectors).hasSize(2);
    assertThat(vectors.get(0)).containsExactly(0.5f, -0.001f);
    assertThat(vectors.get(1)).containsExactly(2f, 3.25f);
  }

  @Test
  @DisplayName("empty arrays, and vectors of another size than expected, are read as they are")
  void sizesAsGiven() {
    assertThat(read("[]", 0, 4)).isEmpty();
    assertThat(read("[[]]", 0, 4).get(0)).isEmpty();
    assertThat(read("[[1,2,3]]", 0, 2).get(0)).containsExactly(1f, 2f, 3f);
  }

  @Test
  @DisplayName("anything but JSON numbers in arrays is malformed")
  void malformed() {
    for (String bad : List.of("[[01]]", "[[1.]]", "[[.5]]", "[[1e]]", "[[--1]]", "[[+1]]", "[[NaN]]", "[[1 2]]",
        "[[1,]]", "[[1]", "[[1],]", "[[\"1\"]]", "[[1]x]", "[1]", "[[1.2.3]]", "[[1e+]]", "{[1]}", "[[-]]")) {
      assertThatThrownBy(() -> read(bad, 0, 1)).as(bad).isInstanceOf(IllegalStateException.class);
    }
  }
}
