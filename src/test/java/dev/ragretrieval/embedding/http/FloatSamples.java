package dev.ragretrieval.embedding.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/** JSON numbers as embedding APIs print them, for both float readers' tests ({@link JsonFloats}, {@link FloatArrays}). */
final class FloatSamples {

  private FloatSamples() {}

  /** What Cohere prints: up to 9 significant digits, small ones with an exponent, and zeros in every form. */
  static List<String> cohere() {
    return List.of("-0.016679477", "0.04437256", "-1.2345678e-05", "3.4e-05", "1e-07", "0", "-0", "0.0", "-0.0",
        "1", "-1", "0.5", "7.006492e-46", "1.17549435E-38", "3.4028235e+38", "10", "0.000");
  }

  /** Every float printed shortest, in both exponent styles, and random decimals of up to 17 digits. */
  static List<String> random(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
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
    return numbers;
  }

  /** Integers, long fractions and huge exponents: outside the readers' fast path. */
  static List<String> outsideTheFastPath() {
    return List.of("12345678901234567890", "0.12345678901234567890123", "1e300", "1e-300",
        "123456789012345678e-30", "42", "-7", "100000000000000000000000", "1e99999999", "0e5");
  }
}
