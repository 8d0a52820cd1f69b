package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Deadline;
import static dev.ragretrieval.embedding.Vectors.cosine;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.config;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.search.KeywordAnalysis;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchMode;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestBm25;
import dev.ragretrieval.testing.QdrantTestServer;
import io.qdrant.client.grpc.Collections.Modifier;
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
  @DisplayName("a hybrid search is one QueryBatch: a filtered dense prefetch and a bm25 document prefetch over it, fused by RRF, no vectors; beside it the dense prefetch alone, for the cosines")
  void hybridQueryShape() {
    int before = qdrant.queries().size();
    await(store.search(hybrid(5, 0f, Map.of("chapter", List.of("even")))));

    assertThat(qdrant.callCount("QueryBatch")).isEqualTo(1);
    assertThat(qdrant.callCount("Query")).isZero();
    List<QueryPoints> batch = qdrant.queries().subList(before, qdrant.queries().size());
    assertThat(batch).hasSize(2);
    QueryPoints sent = batch.get(0);
    assertThat(sent.getQuery().hasRrf()).isTrue();
    assertThat(sent.getQuery().getRrf().getK()).isEqualTo(Fusion.DEFAULT.qdrantK());
    assertThat(sent.getQuery().getRrf().getWeightsList())
        .containsExactly((float) Fusion.DEFAULT.denseWeight(), (float) Fusion.DEFAULT.keywordWeight());
    assertThat(sent.getPrefetchCount()).isEqualTo(2);
    PrefetchQuery dense = sent.getPrefetch(0);
    PrefetchQuery sparse = sent.getPrefetch(1);
    assertThat(dense.getQuery().getNearest().getDense().getDataCount()).isEqualTo(DIM);
    assertThat(dense.hasUsing()).isFalse();
    assertThat(sparse.getUsing()).isEqualTo("bm25");
    assertThat(sparse.getQuery().getNearest().getDocument().getText()).isEqualTo(QUERY);
    assertThat(sparse.getQuery().getNearest().getDocument().getModel()).isEqualTo("qdrant/bm25");
    // the collection was created without a measured length: Qdrant's 256, with the analysis options
    assertThat(QdrantPayloads.fromPayload(sparse.getQuery().getNearest().getDocument().getOptionsMap()))
        .isEqualTo(KeywordAnalysis.qdrantOptions(KeywordAnalysis.QDRANT_DEFAULT_AVG_LEN));
    assertThat(dense.getLimit()).isEqualTo(Fusion.DEFAULT.candidatesFor(5));
    assertThat(sparse.getLimit()).isEqualTo(Fusion.DEFAULT.candidatesFor(5));
    assertThat(dense.hasFilter()).isTrue();
    // BM25 ranks the dense candidates only: its prefetch holds the dense prefetch, filter and all
    assertThat(sparse.getPrefetchList()).containsExactly(dense);
    assertThat(sent.getWithVectors().getEnable()).isFalse();
    assertThat(sent.getWithPayload().getEnable()).isTrue();
    // the dense prefetch on its own: the same candidates, ids and cosines only
    QueryPoints cosines = batch.get(1);
    assertThat(cosines.getPrefetchCount()).isZero();
    assertThat(cosines.getQuery()).isEqualTo(dense.getQuery());
    assertThat(cosines.getFilter()).isEqualTo(dense.getFilter());
    assertThat(cosines.getScoreThreshold()).isEqualTo(dense.getScoreThreshold());
    assertThat(cosines.getLimit()).isEqualTo(dense.getLimit());
    assertThat(cosines.hasUsing()).isFalse();
    assertThat(cosines.getWithPayload().getEnable()).isFalse();
    assertThat(cosines.getWithVectors().getEnable()).isFalse();
  }

  @Test
  @DisplayName("a fused hit missing from its dense list (a replica that answered from other data): the page is asked again with vectors, scores are still cosines")
  void cosineMissingAskedAgain() {
    List<ScoredPoint> expected = await(store.search(hybrid(5, 0f, Map.of())));
    int queries = qdrant.callCount("Query");
    // the batch's second result, the dense list, comes back empty
    qdrant.editNextAnswer(answer -> {
      io.qdrant.client.grpc.Points.QueryBatchResponse batch = (io.qdrant.client.grpc.Points.QueryBatchResponse) answer;
      return batch.toBuilder().setResult(1, io.qdrant.client.grpc.Points.BatchResult.getDefaultInstance()).build();
    });

    List<ScoredPoint> hits = await(store.search(hybrid(5, 0f, Map.of())));

    assertThat(qdrant.callCount("Query")).isEqualTo(queries + 1);
    QueryPoints again = qdrant.queries().get(qdrant.queries().size() - 1);
    assertThat(again.getQuery().hasRrf()).isTrue();
    assertThat(again.getWithVectors().getEnable()).isTrue();
    assertThat(hits).extracting(ScoredPoint::id).isEqualTo(expected.stream().map(ScoredPoint::id).toList());
    for (ScoredPoint hit : hits) {
      assertThat(hit.score()).isCloseTo((float) cosine(QUERY_VECTOR, vectors.get(hit.id())), within(1e-5f));
    }
  }

  @Test
  @DisplayName("a keyword query finds the exact-term chunk that dense search ranks last; its score is still its cosine")
  void keywordChunkFound() {
    List<ScoredPoint> dense = await(store.search(new SearchRequest("docs", QUERY_VECTOR, 5, 0f, Map.of(),
        in(Duration.ofSeconds(5)), QUERY, SearchMode.DENSE)));
    // equal weights and k 60: the keyword list's first hit outweighs the dense list's first
    List<ScoredPoint> fused = await(store.search(new SearchRequest("docs", QUERY_VECTOR, 5, 0f, Map.of(),
        in(Duration.ofSeconds(5)), QUERY, SearchMode.HYBRID, new Fusion(60, 1.0, 1.0, 40))));

    assertThat(dense).extracting(ScoredPoint::id).doesNotContain(KEYWORD_ID);
    // first of the bm25 list and last (21st) of the 40 dense candidates: more than the dense list's first
    assertThat(fused.get(0).id()).isEqualTo(KEYWORD_ID);
    assertThat(fused).hasSize(5);
    for (ScoredPoint hit : fused) {
      assertThat(hit.score()).isCloseTo((float) cosine(QUERY_VECTOR, vectors.get(hit.id())), within(1e-5f));
    }
  }

  @Test
  @DisplayName("keywords re-rank the dense candidates only: a keyword match outside them is not brought in")
  void keywordsOnlyWithinDenseCandidates() {
    // 2 hits want 8 candidates per list (candidates setting 1): the keyword chunk, 21st by cosine, is not one
    Fusion narrow = new Fusion(60, 1.0, 1.0, 1);
    List<ScoredPoint> dense = await(store.search(new SearchRequest("docs", QUERY_VECTOR, 2, 0f, Map.of(),
        in(Duration.ofSeconds(5)), QUERY, SearchMode.DENSE)));
    List<ScoredPoint> fused = await(store.search(new SearchRequest("docs", QUERY_VECTOR, 2, 0f, Map.of(),
        in(Duration.ofSeconds(5)), QUERY, SearchMode.HYBRID, narrow)));

    assertThat(fused).extracting(ScoredPoint::id).doesNotContain(KEYWORD_ID)
        .isEqualTo(dense.stream().map(ScoredPoint::id).toList());
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
    // each search's fused query, then its dense list
    assertThat(sent).hasSize(4);
    for (int i = 0; i < 4; i += 2) {
      assertThat(sent.get(i).getPrefetchCount()).isEqualTo(2);
      assertThat(sent.get(i).getQuery().hasRrf()).isTrue();
      assertThat(sent.get(i + 1).getPrefetchCount()).isZero();
      assertThat(sent.get(i + 1).getQuery().getNearest().hasDense()).isTrue();
    }
    assertThat(results.get(0)).extracting(ScoredPoint::id).contains(KEYWORD_ID);
    assertThat(results.get(1)).hasSize(2).extracting(ScoredPoint::id).doesNotContain(KEYWORD_ID);
  }

  @Test
  @DisplayName("the request's fusion goes to Qdrant: Rrf k + 1 (Qdrant counts positions from 0), one weight per prefetch, its candidates")
  void requestFusionSent() {
    await(store.search(new SearchRequest("docs", QUERY_VECTOR, 5, 0f, Map.of(), in(Duration.ofSeconds(5)), QUERY,
        SearchMode.HYBRID, new Fusion(10, 1.0, 0.5, 30))));

    QueryPoints sent = qdrant.queries().get(qdrant.queries().size() - 2);
    assertThat(sent.getQuery().getRrf().getK()).isEqualTo(11);
    assertThat(sent.getQuery().getRrf().getWeightsList()).containsExactly(1.0f, 0.5f);
    assertThat(sent.getPrefetchList()).allSatisfy(prefetch -> assertThat(prefetch.getLimit()).isEqualTo(30));
  }

  @Test
  @DisplayName("equal fused scores, which Qdrant returns in any order, come back ordered by cosine then id, the same every time")
  void tiesInAFixedOrder() {
    // every filler matches "robots topics number" alike: many fused ties, shuffled by the server
    SearchRequest request = new SearchRequest("docs", QUERY_VECTOR, 10, 0f, Map.of(), in(Duration.ofSeconds(5)),
        "robots topics number 3", SearchMode.HYBRID);
    List<String> first = await(store.search(request)).stream().map(ScoredPoint::id).toList();

    for (int i = 0; i < 15; i++) {
      assertThat(await(store.search(request))).extracting(ScoredPoint::id).isEqualTo(first);
    }
    assertThat(first).hasSize(10);
  }

  @Test
  @DisplayName("a tie reaching the page's end is asked again for every candidate, the cosines still from the dense list: no vectors")
  void unsettledPageAskedAgainWithoutVectors() {
    List<ScoredPoint> expected = await(store.search(hybrid(5, 0f, Map.of())));
    int queries = qdrant.callCount("Query");
    int before = qdrant.queries().size();
    // every fused score of the page equal: a tie from the last hit kept to the end of the page
    qdrant.editNextAnswer(answer -> {
      io.qdrant.client.grpc.Points.QueryBatchResponse batch = (io.qdrant.client.grpc.Points.QueryBatchResponse) answer;
      io.qdrant.client.grpc.Points.BatchResult.Builder page = batch.getResult(0).toBuilder();
      page.getResultBuilderList().forEach(hit -> hit.setScore(0.5f));
      return batch.toBuilder().setResult(0, page).build();
    });

    List<ScoredPoint> hits = await(store.search(hybrid(5, 0f, Map.of())));

    assertThat(qdrant.callCount("Query")).isEqualTo(queries + 1);
    List<QueryPoints> sent = qdrant.queries().subList(before, qdrant.queries().size());
    assertThat(sent).hasSize(3); // the batch's fused query and dense list, then the page asked again
    assertThat(sent.get(2).getQuery().hasRrf()).isTrue();
    assertThat(sent.get(2).getLimit()).isEqualTo(2 * Fusion.DEFAULT.candidatesFor(5));
    assertThat(sent).allSatisfy(q -> assertThat(q.getWithVectors().getEnable()).isFalse());
    assertThat(hits).extracting(ScoredPoint::id).isEqualTo(expected.stream().map(ScoredPoint::id).toList());
    for (ScoredPoint hit : hits) {
      assertThat(hit.score()).isCloseTo((float) cosine(QUERY_VECTOR, vectors.get(hit.id())), within(1e-5f));
    }
  }

  @Test
  @DisplayName("a collection created with a measured keyword length keeps it as metadata, and upserted BM25 vectors are weighed with it")
  void measuredAverageLength() {
    double avgLen = 7.5;
    await(store.createCollection("measured", DIM, List.of(), avgLen, in(Duration.ofSeconds(5))));
    JsonObject payload = new JsonObject().put("page_title", "Backup").put("text", "Dump the dump with pg_dump, then restore it");
    await(store.upsert("measured", List.of(new Point(KEYWORD_ID, KEYWORD_VECTOR, payload))));

    QdrantTestBm25.Config config = QdrantTestBm25.Config.of(QdrantPayloads.toPayload(KeywordAnalysis.qdrantOptions(avgLen)));
    assertThat(config.avgLen()).isEqualTo(avgLen);
    assertThat(qdrant.sparseVectors("measured", KEYWORD_ID).get("bm25"))
        .isEqualTo(QdrantTestBm25.document(KeywordText.of(payload), config))
        .isNotEqualTo(QdrantTestBm25.document(KeywordText.of(payload)));
    // the same tokens as the embedded store's analysis
    assertThat(qdrant.sparseVectors("measured", KEYWORD_ID).get("bm25").keySet()).containsExactlyInAnyOrderElementsOf(
        KeywordAnalysis.tokens(KeywordText.of(payload)).stream().map(QdrantTestBm25::termId).distinct().toList());
  }

  private static SearchRequest hybrid(int limit, float threshold, Map<String, List<Object>> filter) {
    return new SearchRequest("docs", QUERY_VECTOR, limit, threshold, filter, in(Duration.ofSeconds(5)), QUERY,
        SearchMode.HYBRID);
  }
}
