package dev.ragretrieval.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.Modifier;
import io.qdrant.client.grpc.Collections.SparseVectorConfig;
import io.qdrant.client.grpc.Collections.SparseVectorParams;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.Points.DenseVector;
import io.qdrant.client.grpc.Points.Document;
import io.qdrant.client.grpc.Points.Fusion;
import io.qdrant.client.grpc.Points.NamedVectors;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PrefetchQuery;
import io.qdrant.client.grpc.Points.Query;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.UpsertPoints;
import io.qdrant.client.grpc.Points.Vector;
import io.qdrant.client.grpc.Points.VectorInput;
import io.qdrant.client.grpc.Points.Vectors;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The Qdrant stand-in's hybrid behaviour, checked against the formulas read in Qdrant's source and docs. */
class QdrantTestStoreHybridTest {

  private final QdrantTestStore store = new QdrantTestStore();

  @BeforeEach
  void collection() {
    store.create(CreateCollection.newBuilder()
        .setCollectionName("c")
        .setVectorsConfig(VectorsConfig.newBuilder().setParams(VectorParams.newBuilder().setSize(2).setDistance(Distance.Cosine)))
        .setSparseVectorsConfig(SparseVectorConfig.newBuilder()
            .putMap("bm25", SparseVectorParams.newBuilder().setModifier(Modifier.Idf).build()))
        .build());
    upsert(1, new float[] {1, 0}, "backup with pg_dump");
    upsert(2, new float[] {0.8f, 0.6f}, "restore a cluster");
    upsert(3, new float[] {0, 1}, "replication slots");
  }

  @Test
  @DisplayName("the collection info reports the sparse vector and its IDF modifier")
  void infoHasSparseConfig() {
    var info = store.get(io.qdrant.client.grpc.Collections.GetCollectionInfoRequest.newBuilder().setCollectionName("c").build());
    assertThat(info.getResult().getConfig().getParams().getSparseVectorsConfig().getMapMap().get("bm25").getModifier())
        .isEqualTo(Modifier.Idf);
  }

  @Test
  @DisplayName("RRF fuses prefetches as Qdrant does: 1 / (position + 2), summed over the lists")
  void rrfScores() {
    // dense order: 1, 2, 3 (cosine to {1, 0}); the bm25 list has only point 3
    List<ScoredPoint> fused = store.query(QueryPoints.newBuilder()
        .setCollectionName("c")
        .addPrefetch(PrefetchQuery.newBuilder().setQuery(nearestDense(1, 0)).setLimit(10))
        .addPrefetch(PrefetchQuery.newBuilder().setQuery(nearestDocument("replication")).setUsing("bm25").setLimit(10))
        .setQuery(Query.newBuilder().setFusion(Fusion.RRF))
        .build()).getResultList();

    assertThat(fused).extracting(p -> p.getId().getNum()).containsExactly(3L, 1L, 2L);
    assertThat(fused.get(0).getScore()).isCloseTo(1f / 4 + 1f / 2, within(1e-6f));
    assertThat(fused.get(1).getScore()).isCloseTo(1f / 2, within(1e-6f));
    assertThat(fused.get(2).getScore()).isCloseTo(1f / 3, within(1e-6f));
  }

  @Test
  @DisplayName("a bm25 search scores IDF x document weight, and finds only points sharing a term")
  void sparseIdfScore() {
    List<ScoredPoint> hits = store.query(QueryPoints.newBuilder()
        .setCollectionName("c")
        .setQuery(nearestDocument("restoring"))
        .setUsing("bm25")
        .build()).getResultList();

    double idf = Math.log((3 - 1 + 0.5) / (1 + 0.5) + 1);
    float weight = QdrantTestBm25.document("restore a cluster").get(QdrantTestBm25.termId("restor"));
    assertThat(hits).hasSize(1);
    assertThat(hits.get(0).getId().getNum()).isEqualTo(2L);
    assertThat(hits.get(0).getScore()).isCloseTo((float) (idf * weight), within(1e-5f));
  }

  @Test
  @DisplayName("a vector name the collection lacks is INVALID_ARGUMENT, in a query and in an upsert")
  void unknownVectorName() {
    QueryPoints query = QueryPoints.newBuilder().setCollectionName("c").setQuery(nearestDocument("x")).setUsing("nope").build();
    assertThatThrownBy(() -> store.query(query))
        .isInstanceOfSatisfying(StatusException.class, e -> {
          assertThat(e.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
          assertThat(e.message()).contains("Not existing vector name error: nope");
        });
    assertThatThrownBy(() -> store.upsert(UpsertPoints.newBuilder().setCollectionName("c").addPoints(point(9,
        new float[] {1, 0}, "nope", "t")).build()))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT));
  }

  @Test
  @DisplayName("BM25 inference: word tokens, lowercase, English stop words out, Snowball stems, tf weight with k 1.2, b 0.75, avg_len 256")
  void bm25Inference() {
    assertThat(QdrantTestBm25.tokens("The Running dogs' pg_dump, running!")).containsExactly("run", "dog", "pg", "dump", "run");
    Map<Integer, Float> doc = QdrantTestBm25.document("running run dogs");
    double norm = 1.2 * (1 - 0.75 + 0.75 * 3 / 256.0);
    assertThat(doc.get(QdrantTestBm25.termId("run"))).isCloseTo((float) (2 * 2.2 / (2 + norm)), within(1e-6f));
    assertThat(doc.get(QdrantTestBm25.termId("dog"))).isCloseTo((float) (1 * 2.2 / (1 + norm)), within(1e-6f));
    assertThat(QdrantTestBm25.query("dogs and dogs")).containsExactly(Map.entry(QdrantTestBm25.termId("dog"), 1f));
  }

  private void upsert(long id, float[] vector, String text) {
    store.upsert(UpsertPoints.newBuilder().setCollectionName("c").addPoints(point(id, vector, "bm25", text)).build());
  }

  private static PointStruct point(long id, float[] vector, String sparseName, String text) {
    DenseVector.Builder dense = DenseVector.newBuilder();
    for (float v : vector) {
      dense.addData(v);
    }
    return PointStruct.newBuilder()
        .setId(PointId.newBuilder().setNum(id))
        .setVectors(Vectors.newBuilder().setVectors(NamedVectors.newBuilder()
            .putVectors("", Vector.newBuilder().setDense(dense).build())
            .putVectors(sparseName, Vector.newBuilder()
                .setDocument(Document.newBuilder().setText(text).setModel("qdrant/bm25")).build())))
        .build();
  }

  private static Query nearestDense(float... v) {
    DenseVector.Builder dense = DenseVector.newBuilder();
    for (float x : v) {
      dense.addData(x);
    }
    return Query.newBuilder().setNearest(VectorInput.newBuilder().setDense(dense)).build();
  }

  private static Query nearestDocument(String text) {
    return Query.newBuilder().setNearest(VectorInput.newBuilder()
        .setDocument(Document.newBuilder().setText(text).setModel("qdrant/bm25"))).build();
  }
}
