package dev.ragretrieval.search.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LuceneCollectionTest {

  @Test
  @DisplayName("a collection below Qdrant's plain-index size is searched exactly: every question's top 10 are its"
      + " 10 nearest vectors, as Qdrant returns them for a segment that small (the HNSW walk missed some)")
  void exactBelowThePlainIndexSize(@TempDir Path dir) throws Exception {
    Random random = new Random(7);
    int dimension = 48;
    List<float[]> vectors = new ArrayList<>();
    try (LuceneCollection collection = new LuceneCollection(dir, dimension, false)) {
      for (int batch = 0; batch < 10; batch++) { // several commits: several segments, as an ingest writes them
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
          float[] vector = unit(random, dimension);
          vectors.add(vector);
          points.add(new Point("p" + (vectors.size() - 1), vector, new JsonObject().put("text", "chunk")));
        }
        collection.upsert(points);
      }
      assertThat((long) vectors.size() * dimension).isLessThanOrEqualTo(LuceneCollection.EXACT_FLOATS);
      for (int q = 0; q < 40; q++) {
        float[] question = unit(random, dimension);
        List<String> nearest = IntStream.range(0, vectors.size()).boxed()
            .sorted(Comparator.comparingDouble((Integer i) -> -dot(vectors.get(i), question)))
            .limit(10).map(i -> "p" + i).toList();
        List<String> found = collection.search(question, 10, -1f, Map.of()).stream().map(ScoredPoint::id).toList();
        assertThat(found).as("question %d", q).isEqualTo(nearest);
      }
    }
  }

  private static float[] unit(Random random, int dimension) {
    float[] vector = new float[dimension];
    double norm = 0;
    for (int i = 0; i < dimension; i++) {
      vector[i] = (float) random.nextGaussian();
      norm += vector[i] * vector[i];
    }
    for (int i = 0; i < dimension; i++) {
      vector[i] /= (float) Math.sqrt(norm);
    }
    return vector;
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }
}
