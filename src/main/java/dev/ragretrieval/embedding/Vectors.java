package dev.ragretrieval.embedding;

/** Small vector helpers shared by providers and tests. */
public final class Vectors {

  private Vectors() {}

  /** Scales {@code vector} in place to unit length (a zero vector stays zero) and returns it. */
  public static float[] l2Normalize(float[] vector) {
    double sum = 0;
    for (float v : vector) {
      sum += (double) v * v;
    }
    if (sum == 0) {
      return vector;
    }
    float scale = (float) (1.0 / Math.sqrt(sum));
    for (int i = 0; i < vector.length; i++) {
      vector[i] *= scale;
    }
    return vector;
  }

  /** Cosine similarity of two vectors of equal length. */
  public static double cosine(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("vectors differ in length: " + a.length + " vs " + b.length);
    }
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += (double) a[i] * b[i];
      na += (double) a[i] * a[i];
      nb += (double) b[i] * b[i];
    }
    return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
  }

  /** Euclidean length. */
  public static double norm(float[] vector) {
    double sum = 0;
    for (float v : vector) {
      sum += (double) v * v;
    }
    return Math.sqrt(sum);
  }
}
