package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Deadline;
import static dev.ragretrieval.embedding.Vectors.cosine;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.config;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchMode;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestBm25;
import dev.ragretrieval.testing.QdrantTestServer;
import io.qdrant.client.grpc.Collections.Modifier;
import io.qdrant.client.grpc.Points.Fusion;
import io.qdrant.client.grpc.Points.PrefetchQuery;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hybrid search against the Qdrant test server: what the store sends (prefetch + RRF, BM25
 * documents) and what comes back (fused order, cosine scores, the threshold on the cosine).
 */
@ExtendWith(VertxExtension.class)
class QdrantHybridSearchTest {

  private static final int DIM = 8;
  private static final String QUERY = "pg_dump custom format";
  private static final float[] QUERY_VECTOR = {1, 0, 0, 0, 0, 0, 0, 0};
  /** Far from the query vector (cosine 0.3), but the only chunk with the query's words. */
  private static final float[] KEYWORD_VECTOR = {0.3f, (float) Math.sqrt(1 - 0.09), 0, 0, 0, 0, 0, 0};
  private static final String KEYWORD_ID = UUID.nameUUIDFromBytes("keyword".getBytes()).toString();

  private QdrantTestServer qdrant;
  private QdrantVectorStore store;
  private final Map<String, float[]> vectors = new java.util.LinkedHashMap<>();

  @BeforeEach
  void start(Vertx vertx) {
    qdrant = await(QdrantTestServer.start(vertx));
    store = new QdrantVectorStore(vertx, config("127.0.0.1", qdrant.port(), null, 2), dev.ragretrieval.observability.RagMetrics.detached());
    await(store.createCollection("docs", DIM, List.of("chapter")));
    Random random = new Random(7);
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      float[] v = QUERY_VECTOR.clone();
      for (int d = 1; d < DIM; d++) {
        v[d] = (float) (random.nextGaussian() * 0.2); // all close to the query: dense ranks them first
      }
      String id = UUID.nameUUIDFromBytes(("filler-" + i).getBytes()).toString();
      vectors.put(id, v);
      points.add(new Point(id, v, new JsonObject().put("text", "Robots publish messages on topics number " + i)
          .put("page_title", "Topics").put("section", "Publishers").put("chapter", i % 2 == 0 ? "even" : "odd")));
    }
    vectors.put(KEYWORD_ID, KEYWORD_VECTOR);
    points.add(new Point(KEYWORD_ID, KEYWORD_VECTOR, new JsonObject()
        .put("text", "Use pg_dump with the custom format to write an archive.")
        .put("page_title", "Backup and Restore").put("section", "SQL Dump").put("chapter", "even")));
    await(store.upsert("docs", points));
  }

  @AfterEach
  void stop() {
    await(store.close());
    await(qdrant.stop());
  }

  @Test
  @DisplayName("a created collection has the sparse vector bm25 with the IDF modifier and says it is hybrid")
  void createsSparseVector() {
    assertThat(qdrant.sparseVectorConfig("docs")).containsExactly(Map.entry("bm25", Modifier.Idf));
    assertThat(await(store.collectionInfo("docs", Deadline.inMillis(30_000))).hybrid()).isTrue();
    assertThat(await(store.hybrid("docs", in(Duration.ofSeconds(5))))).isTrue();
  }

  @Test
  @DisplayName("upserted points carry a qdrant/bm25 document of title, section and text, which the server turns into a sparse vector")
  void upsertsBm25Document() {
    Map<Integer, Float> sparse = qdrant.sparseVectors("docs", KEYWORD_ID).get("bm25");
    assertThat(sparse).containsKeys(
        QdrantTestBm25.termId("dump"), QdrantTestBm25.termId("archiv"), // text (stemmed)
        QdrantTestBm25.termId("backup"), QdrantTestBm25.termId("restor")); // title
    assertThat(sparse).doesNotContainKey(QdrantTestBm25.termId("the")); // a stop word
  }

  @Test
  @DisplayName("a hybrid search is one Query: a dense and a bm25 document prefetch, both filtered, fused by RRF, vectors returned")
  void hybridQueryShape() {
    await(store.search(hybrid(5, 0f, Map.of("chapter", List.of("even")))));

    QueryPoints sent = qdrant.queries().get(qdrant.queries().size() - 1);
    assertThat(sent.getQuery().getFusion()).isEqualTo(Fusion.RRF);
    assertThat(sent.getPrefetchCount()).isEqualTo(2);
    PrefetchQuery dense = sent.getPrefetch(0);
    PrefetchQuery sparse = sent.getPrefetch(1);
    assertThat(dense.getQuery().getNearest().getDense().getDataCount()).isEqualTo(DIM);
    assertThat(dense.hasUsing()).isFalse();
    assertThat(sparse.getUsing()).isEqualTo("bm25");
    assertThat(sparse.getQuery().getNearest().getDocument().getText()).isEqualTo(QUERY);
    assertThat(sparse.getQuery().getNearest().getDocument().getModel()).isEqualTo("qdrant/bm25");
    assertThat(dense.hasFilter()).isTrue();
    assertThat(sparse.getFilter()).isEqualTo(dense.getFilter());
    assertThat(sent.hasWithVectors()).isTrue();
  }

  @Test
  @DisplayName("a keyword query finds the exact-term chunk that dense search ranks last; its score is still its cosine")
  void keywordChunkFound() {
    List<ScoredPoint> dense = await(store.search(new SearchRequest("docs", QUERY_VECTOR, 5, 0f, Map.of(),
        in(Duration.ofSeconds(5)), QUERY, SearchMode.DENSE)));
    List<ScoredPoint> fused = await(store.search(hybrid(5, 0f, Map.of())));

    assertThat(dense).extracting(ScoredPoint::id).doesNotContain(KEYWORD_ID);
    // first of the bm25 list: 1 / (0 + 2), as much as the dense list's first (RRF ties come in any order)
    assertThat(fused.subList(0, 2)).extracting(ScoredPoint::id).contains(KEYWORD_ID);
    assertThat(fused).hasSize(5);
    for (ScoredPoint hit : fused) {
      assertThat(hit.score()).isCloseTo((float) cosine(QUERY_VECTOR, vectors.get(hit.id())), within(1e-5f));
    }
  }

  @Test
  @DisplayName("score_threshold applies to the cosine: a keyword hit below it is left out of a hybrid result")
  void thresholdOnCosine() {
    List<ScoredPoint> fused = await(store.search(hybrid(5, 0.5f, Map.of())));

    assertThat(fused).extracting(ScoredPoint::id).doesNotContain(KEYWORD_ID);
    assertThat(fused).hasSize(5).allSatisfy(hit -> assertThat(hit.score()).isGreaterThanOrEqualTo(0.5f));
  }

  @Test
  @DisplayName("a collection without the bm25 sparse vector is not hybrid, and a hybrid request on it searches dense")
  void oldCollectionFallsBack() {
    qdrant.createCollection("old", DIM);
    vectors.forEach((id, v) -> qdrant.upsert("old", id, v, new JsonObject().put("text", "t")));

    assertThat(await(store.hybrid("old", in(Duration.ofSeconds(5))))).isFalse();
    assertThat(await(store.collectionInfo("old", Deadline.inMillis(30_000))).hybrid()).isFalse();
    List<ScoredPoint> hits = await(store.search(new SearchRequest("old", QUERY_VECTOR, 3, 0f, Map.of(),
        in(Duration.ofSeconds(5)), QUERY, SearchMode.HYBRID)));

    QueryPoints sent = qdrant.queries().get(qdrant.queries().size() - 1);
    assertThat(sent.getPrefetchCount()).isZero();
    assertThat(sent.getQuery().hasNearest()).isTrue();
    assertThat(hits).hasSize(3).extracting(ScoredPoint::id).doesNotContain(KEYWORD_ID);
  }

  @Test
  @DisplayName("a batch of hybrid searches is one QueryBatch whose queries each fuse two prefetches")
  void hybridBatch() {
    int before = qdrant.queries().size();
    List<List<ScoredPoint>> results = await(store.searchBatch(List.of(hybrid(3, 0f, Map.of()),
        hybrid(2, 0f, Map.of("chapter", List.of("odd"))))));

    assertThat(qdrant.callCount("QueryBatch")).isEqualTo(1);
    List<QueryPoints> sent = qdrant.queries().subList(before, qdrant.queries().size());
    assertThat(sent).hasSize(2).allSatisfy(q -> {
      assertThat(q.getPrefetchCount()).isEqualTo(2);
      assertThat(q.getQuery().getFusion()).isEqualTo(Fusion.RRF);
    });
    assertThat(results.get(0)).extracting(ScoredPoint::id).contains(KEYWORD_ID);
    assertThat(results.get(1)).hasSize(2).extracting(ScoredPoint::id).doesNotContain(KEYWORD_ID);
  }

  private static SearchRequest hybrid(int limit, float threshold, Map<String, List<Object>> filter) {
    return new SearchRequest("docs", QUERY_VECTOR, limit, threshold, filter, in(Duration.ofSeconds(5)), QUERY,
        SearchMode.HYBRID);
  }
}
