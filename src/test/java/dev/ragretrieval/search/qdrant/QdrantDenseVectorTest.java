package dev.ragretrieval.search.qdrant;

import static org.assertj.core.api.Assertions.assertThat;

import io.qdrant.client.grpc.Points.DenseVector;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class QdrantDenseVectorTest {

  @Test
  @DisplayName("a query vector goes out as the same protobuf, byte for byte, as one built float by float")
  void sameMessage() {
    // the protobuf on the classpath holds repeated floats in its own list kind (else the class would not load)
    assertThat(QdrantVectorStore.NO_FLOATS).isEmpty();
    Random random = new Random(7);
    for (int dimension : new int[] {0, 1, 3, 1024, 1536}) {
      float[] vector = QdrantTestSupport.randomVector(random, dimension);
      if (dimension > 2) {
        vector[0] = -0.0f;
        vector[1] = Float.MIN_VALUE;
        vector[2] = -0.016679477f;
      }
      DenseVector.Builder oneByOne = DenseVector.newBuilder();
      for (float v : vector) {
        oneByOne.addData(v);
      }
      DenseVector built = QdrantVectorStore.dense(vector);

      assertThat(built).isEqualTo(oneByOne.build());
      assertThat(built.toByteString()).isEqualTo(oneByOne.build().toByteString());
      assertThat(built.getDataCount()).isEqualTo(dimension);
    }
  }
}
