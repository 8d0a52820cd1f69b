package dev.ragretrieval.search.qdrant;

import static dev.ragretrieval.embedding.Vectors.cosine;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.config;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.failure;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.randomVector;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.RealQdrant;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Qdrant store against a real Qdrant 1.18.1 server (skipped, saying why, where the binary is
 * absent): what the in-process test server stands in for, checked at the source.
 */
class RealQdrantStoreTest {

  private static final int DIM = 16;
  private static final String[] CHAPTERS = {"module-1-ros2", "module-2-simulation", "module-3-perception"};

  private static RealQdrant qdrant;
  private static Vertx vertx;
  private static QdrantVectorStore store;
  private static final Map<String, float[]> vectors = new LinkedHashMap<>();
  private static final Map<String, JsonObject> payloads = new LinkedHashMap<>();
  private static final Random random = new Random(7);

  @BeforeAll
  static void start() {
    qdrant = RealQdrant.single();
    vertx = Vertx.vertx();
    store = new QdrantVectorStore(vertx, config(qdrant.host(), qdrant.grpcPort(), null, 2), RagMetrics.detached());
    await(store.createCollection("docs", DIM, List.of("chapter", "chunk_index")));
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String id = UUID.nameUUIDFromBytes(("chunk-" + i).getBytes()).toString();
      float[] v = randomVector(random, DIM);
      JsonObject payload = new JsonObject().put("text", "chunk " + i).put("chapter", CHAPTERS[i % 3])
          .put("chunk_index", i);
      vectors.put(id, v);
      payloads.put(id, payload);
      points.add(new Point(id, v, payload));
    }
    await(store.upsert("docs", points));
  }

  @AfterAll
  static void stop() {
    if (store != null) {
      await(store.close());
    }
    if (vertx != null) {
      await(vertx.close());
    }
    if (qdrant != null) {
      qdrant.close();
    }
  }

  @Test
  @DisplayName("real Qdrant: a collection the store made lists with its size and count")
  void collectionInfo() {
    CollectionInfo info = await(store.collectionInfo("docs", Deadline.in(Duration.ofSeconds(10))));

    assertThat(info.name()).isEqualTo("docs");
    assertThat(info.vectorSize()).isEqualTo(DIM);
    assertThat(info.pointsCount()).isEqualTo(200);
  }

  @Test
  @DisplayName("real Qdrant: dense search returns the exact top-k by cosine, with payloads, filtered or not")
  void denseSearchIsExact() {
    float[] query = randomVector(random, DIM);

    List<ScoredPoint> all = await(store.search(request(query, 10, Map.of())));
    List<ScoredPoint> second = await(store.search(request(query, 10, Map.of("chapter", List.of("module-2-simulation")))));

    // 200 points stay under Qdrant's full-scan threshold, so its answer is exact, not approximate.
    assertThat(all).extracting(ScoredPoint::id).containsExactlyElementsOf(topK(query, 10, id -> true));
    for (ScoredPoint hit : all) {
      assertThat((double) hit.score()).isCloseTo(cosine(query, vectors.get(hit.id())), within(1e-4));
      assertThat(hit.payload()).isEqualTo(payloads.get(hit.id()));
    }
    assertThat(second).extracting(ScoredPoint::id).containsExactlyElementsOf(
        topK(query, 10, id -> payloads.get(id).getString("chapter").equals("module-2-simulation")));
  }

  @Test
  @DisplayName("real Qdrant: a missing collection is COLLECTION_NOT_FOUND, a wrong vector size an upstream error")
  void errors() {
    assertThat(failure(store.search(new SearchRequest("absent", randomVector(random, DIM), 5, -1f, Map.of(),
        Deadline.in(Duration.ofSeconds(10))))).code()).isEqualTo(ErrorCode.COLLECTION_NOT_FOUND);
    assertThat(failure(store.search(request(randomVector(random, DIM + 1), 5, Map.of()))).code())
        .isEqualTo(ErrorCode.UPSTREAM_ERROR);
  }

  @Test
  @DisplayName("real Qdrant: searches of one event-loop turn go as one QueryBatch: each gets its own exact answer,"
      + " and a bad one (missing collection, wrong vector size) fails alone")
  void oneTurnsSearchesTogether() {
    float[] first = randomVector(random, DIM);
    float[] second = randomVector(random, DIM);
    Map<String, List<Object>> simulation = Map.of("chapter", List.of("module-2-simulation"));
    io.vertx.core.Promise<List<io.vertx.core.Future<List<ScoredPoint>>>> asked = io.vertx.core.Promise.promise();
    vertx.getOrCreateContext().runOnContext(turn -> asked.complete(List.of(
        store.search(request(first, 10, Map.of())),
        store.search(request(second, 7, simulation)),
        store.search(new SearchRequest("absent", randomVector(random, DIM), 5, -1f, Map.of(),
            Deadline.in(Duration.ofSeconds(10)))),
        store.search(request(randomVector(random, DIM + 1), 5, Map.of())))));
    List<io.vertx.core.Future<List<ScoredPoint>>> answers = await(asked.future());

    assertThat(await(answers.get(0))).extracting(ScoredPoint::id).containsExactlyElementsOf(topK(first, 10, id -> true));
    assertThat(await(answers.get(1))).extracting(ScoredPoint::id).containsExactlyElementsOf(
        topK(second, 7, id -> payloads.get(id).getString("chapter").equals("module-2-simulation")));
    assertThat(failure(answers.get(2)).code()).isEqualTo(ErrorCode.COLLECTION_NOT_FOUND);
    assertThat(failure(answers.get(3)).code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
  }

  private static SearchRequest request(float[] vector, int limit, Map<String, List<Object>> filter) {
    return new SearchRequest("docs", vector, limit, -1f, filter, Deadline.in(Duration.ofSeconds(10)));
  }

  private static List<String> topK(float[] query, int k, Predicate<String> keep) {
    return vectors.keySet().stream().filter(keep)
        .sorted(Comparator.comparingDouble((String id) -> cosine(query, vectors.get(id))).reversed())
        .limit(k).toList();
  }
}
