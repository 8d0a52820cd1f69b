package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Deadline;
import static dev.ragretrieval.embedding.Vectors.cosine;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.config;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.failure;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.randomVector;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class QdrantVectorStoreTest {

  private static final int DIM = 8;
  private static final String[] CHAPTERS = {"module-1-ros2", "module-2-simulation", "module-3-perception"};

  private QdrantTestServer qdrant;
  private QdrantVectorStore store;
  private final RagMetrics metrics = RagMetrics.detached();
  /** id -> vector and payload, as stored: the reference the answers are checked against */
  private final Map<String, float[]> vectors = new LinkedHashMap<>();
  private final Map<String, JsonObject> payloads = new LinkedHashMap<>();
  private final Random random = new Random(42);

  @BeforeEach
  void start(Vertx vertx) {
    qdrant = await(QdrantTestServer.start(vertx));
    qdrant.createCollection("docs", DIM);
    for (int i = 0; i < 120; i++) {
      String id = UUID.nameUUIDFromBytes(("chunk-" + i).getBytes()).toString();
      float[] v = randomVector(random, DIM);
      JsonObject payload = new JsonObject()
          .put("text", "chunk " + i)
          .put("chapter", CHAPTERS[i % 3])
          .put("chunk_index", i)
          .put("draft", i % 2 == 0);
      vectors.put(id, v);
      payloads.put(id, payload);
      qdrant.upsert("docs", id, v, payload);
    }
    store = new QdrantVectorStore(vertx, config("127.0.0.1", qdrant.port(), null, 3), metrics);
  }

  @AfterEach
  void stop() {
    await(store.close());
    await(qdrant.stop());
  }

  @Test
  @DisplayName("collections lists every collection by name with its point count and vector size, a named-vector one too")
  void listsCollections() {
    qdrant.createCollection("another", 4, "default");
    qdrant.upsert("another", UUID.randomUUID().toString(), new float[] {1, 0, 0, 0}, new JsonObject());
    List<CollectionInfo> listed = await(store.collections(Deadline.in(Duration.ofSeconds(5))));
    assertThat(listed).containsExactly(
        new CollectionInfo("another", 4, 1, false),
        new CollectionInfo("docs", DIM, 120, false));
    assertThat(qdrant.callCount("Collections/List")).isEqualTo(1);
  }

  @Test
  @DisplayName("search returns the exact top-k by cosine similarity, in order, with Qdrant's scores and payloads")
  void searchMatchesBruteForce() {
    float[] query = randomVector(random, DIM);

    List<ScoredPoint> hits = await(store.search(request(query, 10, 0f, Map.of())));

    List<String> expected = topK(query, 10, id -> true);
    assertThat(hits).extracting(ScoredPoint::id).containsExactlyElementsOf(expected);
    for (ScoredPoint hit : hits) {
      assertThat((double) hit.score()).isCloseTo(cosine(query, vectors.get(hit.id())), within(1e-5));
      assertThat(hit.payload()).isEqualTo(payloads.get(hit.id()));
    }
  }

  @Test
  @DisplayName("searches sharing one call: a request near its deadline does not cut the others' time short")
  void sharedCallRunsToTheLatestDeadline(Vertx vertx) {
    qdrant.delay(Duration.ofMillis(300));
    float[] query = randomVector(random, DIM);
    io.vertx.core.Promise<List<io.vertx.core.Future<List<ScoredPoint>>>> asked = io.vertx.core.Promise.promise();
    vertx.getOrCreateContext().runOnContext(turn -> asked.complete(List.of(
        store.search(new SearchRequest("docs", randomVector(random, DIM), 5, 0f, Map.of(),
            Deadline.in(Duration.ofMillis(100)))),
        store.search(new SearchRequest("docs", query, 10, 0f, Map.of(), Deadline.in(Duration.ofSeconds(5)))))));
    List<io.vertx.core.Future<List<ScoredPoint>>> answers = await(asked.future());

    assertThat(await(answers.get(1))).extracting(ScoredPoint::id).containsExactlyElementsOf(topK(query, 10, id -> true));
    assertThat(qdrant.callCount("QueryBatch")).isEqualTo(1);
  }

  @Test
  @DisplayName("score_threshold drops every hit scoring below it")
  void scoreThreshold() {
    float[] query = randomVector(random, DIM);
    List<String> ranked = topK(query, 120, id -> true);
    // halfway between the 7th and 8th scores: no rounding question at the boundary
    float threshold = (float) ((cosine(query, vectors.get(ranked.get(6))) + cosine(query, vectors.get(ranked.get(7)))) / 2);

    List<ScoredPoint> hits = await(store.search(request(query, 50, threshold, Map.of())));

    assertThat(hits).allSatisfy(hit -> assertThat(hit.score()).isGreaterThanOrEqualTo(threshold));
    assertThat(hits).extracting(ScoredPoint::id).containsExactlyElementsOf(ranked.subList(0, 7));
  }

  @Test
  @DisplayName("a single filter value matches exactly: keyword, integer and boolean")
  void exactFilters() {
    float[] query = randomVector(random, DIM);

    List<ScoredPoint> byChapter = await(store.search(request(query, 100, -1f, Map.of("chapter", List.of("module-2-simulation")))));
    List<ScoredPoint> byIndex = await(store.search(request(query, 100, -1f, Map.of("chunk_index", List.of(7)))));
    List<ScoredPoint> drafts = await(store.search(request(query, 100, -1f,
        Map.of("draft", List.of(true), "chapter", List.of("module-1-ros2")))));

    assertThat(byChapter).extracting(ScoredPoint::id)
        .containsExactlyElementsOf(topK(query, 100, id -> payloads.get(id).getString("chapter").equals("module-2-simulation")));
    assertThat(byIndex).hasSize(1);
    assertThat(byIndex.get(0).payload().getInteger("chunk_index")).isEqualTo(7);
    assertThat(drafts).isNotEmpty().extracting(ScoredPoint::id)
        .containsExactlyElementsOf(topK(query, 100, id -> payloads.get(id).getBoolean("draft")
            && payloads.get(id).getString("chapter").equals("module-1-ros2")));
  }

  @Test
  @DisplayName("several filter values match any of them, for keywords and integers")
  void anyOfFilters() {
    float[] query = randomVector(random, DIM);

    List<ScoredPoint> chapters = await(store.search(request(query, 100, -1f,
        Map.of("chapter", List.of("module-1-ros2", "module-3-perception")))));
    List<ScoredPoint> indexes = await(store.search(request(query, 100, -1f, Map.of("chunk_index", List.of(3, 4, 5, 500)))));

    assertThat(chapters).extracting(ScoredPoint::id).containsExactlyElementsOf(topK(query, 100,
        id -> !payloads.get(id).getString("chapter").equals("module-2-simulation")));
    assertThat(indexes).extracting(hit -> hit.payload().getInteger("chunk_index")).containsExactlyInAnyOrder(3, 4, 5);
  }

  @Test
  @DisplayName("payloads survive the round trip: nested objects, lists, integers, doubles, booleans and null")
  void payloadRoundTrip() {
    String id = UUID.randomUUID().toString();
    JsonObject payload = new JsonObject()
        .put("text", "héllo ✓")
        .put("chunk_index", 12)
        .put("big", 9_007_199_254_740_993L)
        .put("ratio", 0.25)
        .put("published", true)
        .put("missing", (Object) null)
        .put("tags", new JsonArray().add("a").add(2).add(false).add(new JsonObject().put("deep", 1.5)))
        .put("meta", new JsonObject().put("author", new JsonObject().put("name", "Ada")).put("pages", new JsonArray()));
    float[] v = randomVector(random, DIM);

    await(store.upsert("docs", List.of(new Point(id, v, payload))));
    List<ScoredPoint> hits = await(store.search(request(v, 1, 0.99f, Map.of())));

    assertThat(hits).hasSize(1);
    assertThat(hits.get(0).id()).isEqualTo(id);
    assertThat(hits.get(0).payload()).isEqualTo(payload);
    assertThat(hits.get(0).payload().getValue("chunk_index")).isInstanceOf(Long.class);
    assertThat(hits.get(0).payload().getLong("big")).isEqualTo(9_007_199_254_740_993L);
    // Qdrant itself holds typed values, not strings
    assertThat(qdrant.payload("docs", id).get("chunk_index").hasIntegerValue()).isTrue();
    assertThat(qdrant.payload("docs", id).get("ratio").hasDoubleValue()).isTrue();
    assertThat(qdrant.payload("docs", id).get("missing").hasNullValue()).isTrue();
  }

  @Test
  @DisplayName("a batch answers every query in request order, in one QueryBatch call")
  void batchKeepsOrder() {
    List<SearchRequest> requests = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Map<String, List<Object>> filter = i == 2 ? Map.of("chapter", List.of("module-3-perception")) : Map.of();
      requests.add(request(randomVector(random, DIM), 3 + i, -1f, filter));
    }
    await(store.collectionInfo("docs", Deadline.inMillis(30_000))); // learn the vector name first, so only the batch call is counted

    List<List<ScoredPoint>> answers = await(store.searchBatch(requests));

    assertThat(answers).hasSize(4);
    assertThat(qdrant.callCount("QueryBatch")).isEqualTo(1);
    assertThat(qdrant.callCount("Query")).isZero();
    for (int i = 0; i < 4; i++) {
      SearchRequest r = requests.get(i);
      Predicate<String> keep = r.filter().isEmpty() ? id -> true
          : id -> payloads.get(id).getString("chapter").equals("module-3-perception");
      assertThat(answers.get(i)).extracting(ScoredPoint::id).containsExactlyElementsOf(topK(r.vector(), r.limit(), keep));
    }
  }

  @Test
  @DisplayName("a batch over two collections is answered in request order")
  void batchOverTwoCollections() {
    qdrant.createCollection("other", DIM);
    String otherId = UUID.randomUUID().toString();
    float[] otherVector = randomVector(random, DIM);
    qdrant.upsert("other", otherId, otherVector, new JsonObject().put("text", "elsewhere"));
    float[] q = randomVector(random, DIM);

    List<List<ScoredPoint>> answers = await(store.searchBatch(List.of(
        request(q, 2, -1f, Map.of()),
        new SearchRequest("other", otherVector, 2, -1f, Map.of(), in(Duration.ofSeconds(5))),
        request(q, 1, -1f, Map.of()))));

    assertThat(answers.get(0)).extracting(ScoredPoint::id).containsExactlyElementsOf(topK(q, 2, id -> true));
    assertThat(answers.get(1)).extracting(ScoredPoint::id).containsExactly(otherId);
    assertThat(answers.get(2)).extracting(ScoredPoint::id).containsExactlyElementsOf(topK(q, 1, id -> true));
  }

  @Test
  @DisplayName("a missing collection is COLLECTION_NOT_FOUND naming the collection, for search and info")
  void missingCollection() {
    ServiceException searchError = failure(store.search(
        new SearchRequest("nope", randomVector(random, DIM), 3, 0f, Map.of(), in(Duration.ofSeconds(5)))));
    ServiceException infoError = failure(store.collectionInfo("nope", Deadline.inMillis(30_000)));

    assertThat(searchError.code()).isEqualTo(ErrorCode.COLLECTION_NOT_FOUND);
    assertThat(searchError.getMessage()).contains("nope");
    assertThat(infoError.code()).isEqualTo(ErrorCode.COLLECTION_NOT_FOUND);
  }

  @Test
  @DisplayName("a query vector of the wrong size is UPSTREAM_ERROR carrying Qdrant's reason")
  void wrongDimension() {
    ServiceException error = failure(store.search(request(new float[] {1, 2, 3}, 3, 0f, Map.of())));

    assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    assertThat(error.getMessage()).contains("dimension").contains("expected dim: 8, got 3");
  }

  @Test
  @DisplayName("collection info reports the vector size and the number of points")
  void collectionInfo() {
    CollectionInfo info = await(store.collectionInfo("docs", Deadline.inMillis(30_000)));

    assertThat(info).isEqualTo(new CollectionInfo("docs", DIM, 120, false));
  }

  @Test
  @DisplayName("a collection with a named vector is searched and written through that name")
  void namedVectors() {
    qdrant.createCollection("named", 4, "text-dense");
    float[] near = {1, 0, 0, 0};
    qdrant.upsert("named", UUID.randomUUID().toString(), new float[] {0, 1, 0, 0}, new JsonObject().put("text", "far"));

    CollectionInfo info = await(store.collectionInfo("named", Deadline.inMillis(30_000)));
    String id = UUID.randomUUID().toString();
    await(store.upsert("named", List.of(new Point(id, near, new JsonObject().put("text", "near")))));
    List<ScoredPoint> hits = await(store.search(
        new SearchRequest("named", new float[] {0.9f, 0.1f, 0, 0}, 1, 0f, Map.of(), in(Duration.ofSeconds(5)))));

    assertThat(info.vectorSize()).isEqualTo(4);
    assertThat(hits).extracting(ScoredPoint::id).containsExactly(id);
  }

  @Test
  @DisplayName("creating a collection makes a Cosine collection with keyword payload indexes and the BM25 sparse vector")
  void createCollectionWithIndexes() {
    await(store.createCollection("fresh", 4, List.of("chapter", "source_url")));

    assertThat(qdrant.collectionExists("fresh")).isTrue();
    assertThat(await(store.collectionInfo("fresh", Deadline.inMillis(30_000)))).isEqualTo(new CollectionInfo("fresh", 4, 0, true));
    assertThat(qdrant.payloadIndexes("fresh")).containsOnlyKeys("chapter", "source_url")
        .allSatisfy((key, type) -> assertThat(type).isEqualTo(io.qdrant.client.grpc.Points.FieldType.FieldTypeKeyword));
  }

  @Test
  @DisplayName("deleting a collection removes it, and deleting a missing one succeeds")
  void deleteCollection() {
    await(store.deleteCollection("docs"));
    await(store.deleteCollection("never-was"));

    assertThat(qdrant.collectionExists("docs")).isFalse();
    assertThat(failure(store.collectionInfo("docs", Deadline.inMillis(30_000))).code()).isEqualTo(ErrorCode.COLLECTION_NOT_FOUND);
  }

  @Test
  @DisplayName("deleteStale removes a source's points except the ids to keep, and leaves other sources alone")
  void deleteStaleKeepsOnlyKeepIds() {
    await(store.createCollection("book", 4, List.of("source_url")));
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      points.add(new Point(UUID.randomUUID().toString(), randomVector(random, 4),
          new JsonObject().put("source_url", "https://x/a").put("chunk_index", i)));
    }
    Point elsewhere = new Point(UUID.randomUUID().toString(), randomVector(random, 4),
        new JsonObject().put("source_url", "https://x/b"));
    points.add(elsewhere);
    await(store.upsert("book", points));
    assertThat(qdrant.count("book")).isEqualTo(6);

    await(store.deleteStale("book", "https://x/a", List.of(points.get(1).id(), points.get(3).id())));

    assertThat(qdrant.ids("book")).containsExactlyInAnyOrder(points.get(1).id(), points.get(3).id(), elsewhere.id());
  }

  @Test
  @DisplayName("upserting the same id again replaces the point instead of adding one")
  void upsertReplaces() {
    String id = payloads.keySet().iterator().next();
    await(store.upsert("docs", List.of(new Point(id, randomVector(random, DIM), new JsonObject().put("text", "new")))));

    assertThat(qdrant.count("docs")).isEqualTo(120);
    assertThat(qdrant.payload("docs", id).get("text").getStringValue()).isEqualTo("new");
  }

  @Test
  @DisplayName("facet lists a key's values with their counts, most frequent first")
  void facetCounts() {
    for (int i = 0; i < 6; i++) {
      qdrant.upsert("docs", UUID.randomUUID().toString(), randomVector(random, DIM),
          new JsonObject().put("chapter", "module-3-perception"));
    }
    for (int i = 0; i < 3; i++) {
      qdrant.upsert("docs", UUID.randomUUID().toString(), randomVector(random, DIM),
          new JsonObject().put("chapter", "module-2-simulation"));
    }

    var counts = await(store.facet("docs", "chapter", 10, Deadline.in(java.time.Duration.ofSeconds(10))));

    assertThat(counts).extracting(c -> c.value(), c -> c.count()).containsExactly(
        org.assertj.core.groups.Tuple.tuple("module-3-perception", 46L),
        org.assertj.core.groups.Tuple.tuple("module-2-simulation", 43L),
        org.assertj.core.groups.Tuple.tuple("module-1-ros2", 40L));
    assertThat(await(store.facet("docs", "chapter", 1, Deadline.in(java.time.Duration.ofSeconds(10))))).hasSize(1);
  }

  @Test
  @DisplayName("every call is timed in rag_vector_store_duration_seconds by operation and outcome (\"success\" or the code in lower case)")
  void metrics() {
    var registry = metrics.registry();
    await(store.search(request(randomVector(random, DIM), 3, 0f, Map.of()))); // the vector name is looked up once
    double before = searches(registry, "success") + searches(registry, "collection_not_found");

    await(store.search(request(randomVector(random, DIM), 3, 0f, Map.of())));
    failure(store.search(new SearchRequest("nope", randomVector(random, DIM), 3, 0f, Map.of(), in(Duration.ofSeconds(5)))));

    assertThat(searches(registry, "success") + searches(registry, "collection_not_found")).isEqualTo(before + 2);
    assertThat(searches(registry, "collection_not_found")).isPositive();
  }

  private static double searches(io.micrometer.core.instrument.MeterRegistry registry, String outcome) {
    var timer = registry.find("rag_vector_store_duration_seconds")
        .tags("store", "qdrant", "operation", "search", "outcome", outcome).timer();
    return timer == null ? 0 : timer.count();
  }

  private SearchRequest request(float[] vector, int limit, float threshold, Map<String, List<Object>> filter) {
    return new SearchRequest("docs", vector, limit, threshold, filter, in(Duration.ofSeconds(5)));
  }

  private List<String> topK(float[] query, int k, Predicate<String> keep) {
    return vectors.keySet().stream()
        .filter(keep)
        .sorted(Comparator.comparingDouble((String id) -> cosine(query, vectors.get(id))).reversed())
        .limit(k)
        .toList();
  }
}
