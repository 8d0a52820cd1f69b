package dev.ragretrieval.search.qdrant;

import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.failure;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.SearchMode;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.QuantizationType;
import io.qdrant.client.grpc.Points.PrefetchQuery;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.ReadConsistencyType;
import io.qdrant.client.grpc.Points.WriteOrderingType;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The qdrant.layout, write_ordering and read_consistency settings, as the messages Qdrant receives carry them. */
@ExtendWith(VertxExtension.class)
class QdrantLayoutTest {

  private static final AppConfig.Layout THREE_NODES = new AppConfig.Layout(OptionalInt.of(3), OptionalInt.of(2),
      OptionalInt.of(2), true, AppConfig.Quantization.INT8);

  private QdrantTestServer qdrant;
  private QdrantVectorStore store;

  @AfterEach
  void stop() {
    if (store != null) {
      await(store.close());
    }
    if (qdrant != null) {
      await(qdrant.stop());
    }
  }

  @Test
  @DisplayName("a collection the service creates has the shards, replicas, write consistency, on-disk payload and int8 quantization asked for")
  void createsWithTheLayout(Vertx vertx) {
    start(vertx, THREE_NODES, Optional.of(AppConfig.WriteOrdering.STRONG), Optional.of(AppConfig.ReadConsistency.of("majority")));

    await(store.createCollection("docs", 2, List.of("chapter")));

    CreateCollection layout = qdrant.layout("docs");
    assertThat(layout.getShardNumber()).isEqualTo(3);
    assertThat(layout.getReplicationFactor()).isEqualTo(2);
    assertThat(layout.getWriteConsistencyFactor()).isEqualTo(2);
    assertThat(layout.getOnDiskPayload()).isTrue();
    assertThat(layout.getQuantizationConfig().getScalar().getType()).isEqualTo(QuantizationType.Int8);
    assertThat(layout.getQuantizationConfig().getScalar().getAlwaysRam()).isTrue();
    // the vectors and the hybrid sparse vector are what they were without a layout
    assertThat(layout.getVectorsConfig().getParams().getSize()).isEqualTo(2);
    assertThat(qdrant.sparseVectorConfig("docs")).containsKey(QdrantVectorStore.SPARSE);
  }

  @Test
  @DisplayName("with no layout set the collection is created with Qdrant's defaults: none of the fields is sent")
  void defaultsSendNothing(Vertx vertx) {
    start(vertx, AppConfig.Layout.QDRANT_DEFAULT, Optional.empty(), Optional.empty());

    await(store.createCollection("docs", 2, List.of()));
    await(store.upsert("docs", List.of(point()), in(Duration.ofSeconds(5))));
    await(store.search(dense()));

    CreateCollection layout = qdrant.layout("docs");
    assertThat(layout.hasShardNumber()).isFalse();
    assertThat(layout.hasReplicationFactor()).isFalse();
    assertThat(layout.hasWriteConsistencyFactor()).isFalse();
    assertThat(layout.getOnDiskPayload()).isFalse();
    assertThat(layout.hasQuantizationConfig()).isFalse();
    QueryPoints sent = qdrant.queries().get(qdrant.queries().size() - 1);
    assertThat(sent.hasReadConsistency()).isFalse();
    assertThat(sent.hasParams()).isFalse();
    assertThat(qdrant.orderings()).containsOnly(WriteOrderingType.Weak);
  }

  @Test
  @DisplayName("every write carries the ordering, every search the read consistency and, on int8, rescoring of the dense part")
  void writesAndSearchesCarryConsistency(Vertx vertx) {
    start(vertx, THREE_NODES, Optional.of(AppConfig.WriteOrdering.MEDIUM), Optional.of(AppConfig.ReadConsistency.of(2)));
    await(store.createCollection("docs", 2, List.of("chapter")));
    await(store.upsert("docs", List.of(point()), in(Duration.ofSeconds(5))));
    await(store.deleteStale("docs", "https://example.org/a", List.of(), in(Duration.ofSeconds(5))));

    assertThat(await(store.search(dense()))).isEmpty(); // deleted just above
    await(store.upsert("docs", List.of(point()), in(Duration.ofSeconds(5))));
    assertThat(await(store.search(new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(),
        in(Duration.ofSeconds(5)), "one", SearchMode.HYBRID)))).hasSize(1);
    await(store.searchBatch(List.of(dense(), dense())));

    // chapter's index at creation, upsert, delete, upsert
    assertThat(qdrant.orderings()).hasSize(4).containsOnly(WriteOrderingType.Medium);
    List<QueryPoints> queries = qdrant.queries();
    // the dense search, the hybrid one's fused query and its dense list, the batch's two
    assertThat(queries).hasSize(5).allSatisfy(q -> assertThat(q.getReadConsistency().getFactor()).isEqualTo(2));
    QueryPoints plain = queries.get(0);
    assertThat(plain.getParams().getQuantization().getRescore()).isTrue();
    assertThat(plain.getParams().getQuantization().getOversampling()).isGreaterThanOrEqualTo(1.0);
    QueryPoints hybrid = queries.get(1);
    PrefetchQuery densePrefetch = hybrid.getPrefetchList().stream().filter(p -> p.getQuery().getNearest().hasDense())
        .findFirst().orElseThrow();
    PrefetchQuery sparsePrefetch = hybrid.getPrefetchList().stream().filter(p -> p.getQuery().getNearest().hasDocument())
        .findFirst().orElseThrow();
    assertThat(densePrefetch.getParams().getQuantization().getRescore()).isTrue();
    assertThat(sparsePrefetch.hasParams()).isFalse(); // sparse vectors are not quantized
    assertThat(sparsePrefetch.getPrefetch(0).getParams().getQuantization().getRescore()).isTrue(); // its dense candidates
    assertThat(hybrid.hasParams()).isFalse(); // the fusion step searches nothing
    QueryPoints cosines = queries.get(2);
    assertThat(cosines.getPrefetchCount()).isZero();
    assertThat(cosines.getParams().getQuantization().getRescore()).isTrue(); // exact cosines, as the prefetch's
  }

  @Test
  @DisplayName("a read consistency word is sent as Qdrant's type")
  void readConsistencyWords(Vertx vertx) {
    start(vertx, AppConfig.Layout.QDRANT_DEFAULT, Optional.empty(), Optional.of(AppConfig.ReadConsistency.of("quorum")));
    await(store.createCollection("docs", 2, List.of()));

    await(store.search(dense()));

    QueryPoints sent = qdrant.queries().get(0);
    assertThat(sent.getReadConsistency().getType()).isEqualTo(ReadConsistencyType.Quorum);
    assertThat(sent.hasParams()).isFalse(); // no quantization, nothing to rescore
  }

  @Test
  @DisplayName("a layout Qdrant refuses fails the creation with Qdrant's reason, and no collection is left")
  void refusedLayout(Vertx vertx) {
    start(vertx, new AppConfig.Layout(OptionalInt.of(0), OptionalInt.empty(), OptionalInt.empty(), false,
        AppConfig.Quantization.NONE), Optional.empty(), Optional.empty());

    var error = failure(store.createCollection("docs", 2, List.of()));

    assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    assertThat(error.getMessage()).contains("shard_number: value 0 invalid, must be 1 or larger");
    assertThat(qdrant.collectionExists("docs")).isFalse();
  }

  private void start(Vertx vertx, AppConfig.Layout layout, Optional<AppConfig.WriteOrdering> ordering,
      Optional<AppConfig.ReadConsistency> read) {
    qdrant = await(QdrantTestServer.start(vertx));
    AppConfig.Qdrant config = new AppConfig.Qdrant(Optional.of("127.0.0.1"), qdrant.port(), Optional.empty(), false,
        Optional.empty(), "docs", Set.of(), Duration.ofSeconds(3), 2, AppConfig.Circuit.DEFAULT, layout, ordering, read,
        AppConfig.Failover.DEFAULT);
    store = new QdrantVectorStore(vertx, config, RagMetrics.detached());
  }

  private static Point point() {
    return new Point(UUID.randomUUID().toString(), new float[] {1, 0},
        new JsonObject().put("text", "one").put("source_url", "https://example.org/a").put("chapter", "c"));
  }

  private static SearchRequest dense() {
    return new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(), in(Duration.ofSeconds(5)));
  }
}
