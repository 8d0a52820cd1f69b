package dev.ragretrieval.search.qdrant;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import io.qdrant.client.grpc.Points.DenseVector;
import io.qdrant.client.grpc.Points.Query;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.VectorInput;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class QdrantDenseVectorTest {

  @Test
  @DisplayName("a query vector goes out as the same bytes as the message built float by float, and reads back as its floats")
  void sameBytes() throws InvalidProtocolBufferException {
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

      assertThat(built.toByteString()).isEqualTo(oneByOne.build().toByteString());
      assertThat(built.getSerializedSize()).isEqualTo(oneByOne.build().getSerializedSize());
      DenseVector read = DenseVector.parseFrom(built.toByteString());
      assertThat(read).isEqualTo(oneByOne.build());
      assertThat(read.getDataCount()).isEqualTo(dimension);
      for (int i = 0; i < dimension; i++) {
        assertThat(Float.floatToRawIntBits(read.getData(i))).isEqualTo(Float.floatToRawIntBits(vector[i]));
      }
    }
  }

  @Test
  @DisplayName("inside a query, the vector's bytes are those of the query built float by float")
  void sameQuery() throws InvalidProtocolBufferException {
    float[] vector = QdrantTestSupport.randomVector(new Random(11), 1024);
    DenseVector.Builder oneByOne = DenseVector.newBuilder();
    for (float v : vector) {
      oneByOne.addData(v);
    }
    QueryPoints expected = query(oneByOne.build());
    QueryPoints sent = query(QdrantVectorStore.dense(vector));

    assertThat(sent.toByteArray()).isEqualTo(expected.toByteArray());
    assertThat(QueryPoints.parseFrom(sent.toByteArray())).isEqualTo(expected);
  }

  private static QueryPoints query(DenseVector vector) {
    return QueryPoints.newBuilder()
        .setCollectionName("book")
        .setQuery(Query.newBuilder().setNearest(VectorInput.newBuilder().setDense(vector)))
        .setLimit(5)
        .build();
  }
}
