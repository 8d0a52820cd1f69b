package dev.ragretrieval.search.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.embedding.Vectors;
import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchMode;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Hybrid search in the embedded store: Lucene BM25 over title, section and text, fused with k-NN by RRF. */
@ExtendWith(VertxExtension.class)
class EmbeddedHybridSearchTest {

  private static final int DIM = 8;
  private static final String QUERY = "BRIN index for an append-only table";
  private static final float[] QUERY_VECTOR = {1, 0, 0, 0, 0, 0, 0, 0};
  private static final float[] KEYWORD_VECTOR = {0.3f, (float) Math.sqrt(1 - 0.09), 0, 0, 0, 0, 0, 0};

  @TempDir
  Path dataDir;

  private Vertx vertx;
  private EmbeddedVectorStore store;
  private final Map<String, float[]> vectors = new LinkedHashMap<>();
  private final List<Point> points = new ArrayList<>();

  @BeforeEach
  void data(Vertx vertx) {
    this.vertx = vertx;
    Random random = new Random(3);
    for (int i = 0; i < 30; i++) {
      float[] v = QUERY_VECTOR.clone();
      for (int d = 1; d < DIM; d++) {
        v[d] = (float) (random.nextGaussian() * 0.2);
      }
      points.add(new Point("f" + i, v, new JsonObject().put("text", "A node publishes messages on topic " + i)
          .put("page_title", "Topics").put("section", "Publishers").put("chapter", "ch" + (i % 2))));
    }
    points.add(new Point("brin", KEYWORD_VECTOR, new JsonObject().put("text", "Block range indexes suit very large tables.")
        .put("page_title", "Index Types").put("section", "BRIN").put("chapter", "ch0")));
    points.forEach(p -> vectors.put(p.id(), p.vector()));
  }

  @AfterEach
  void close() {
    if (store != null) {
      await(store.close());
    }
  }

  @Test
  @DisplayName("a new collection is hybrid: an exact-term chunk that k-NN ranks last comes first, scored by its cosine")
  void keywordChunkFirst() {
    store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
    await(store.createCollection("book", DIM, List.of("chapter")).compose(v -> store.upsert("book", points)));

    assertThat(await(store.collectionInfo("book", Deadline.inMillis(30_000))).hybrid()).isTrue();
    List<ScoredPoint> dense = await(store.search(request(SearchMode.DENSE, 5, 0f, Map.of())));
    List<ScoredPoint> hybrid = await(store.search(request(SearchMode.HYBRID, 5, 0f, Map.of())));

    assertThat(dense).extracting(ScoredPoint::id).doesNotContain("brin");
    assertThat(hybrid.get(0).id()).isEqualTo("brin");
    assertThat(hybrid).hasSize(5).allSatisfy(hit ->
        assertThat((double) hit.score()).isCloseTo(Vectors.cosine(QUERY_VECTOR, vectors.get(hit.id())), within(1e-4)));
  }

  @Test
  @DisplayName("in a hybrid search the threshold applies to the cosine and the filter to both lists")
  void thresholdAndFilter() {
    store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
    await(store.createCollection("book", DIM, List.of("chapter")).compose(v -> store.upsert("book", points)));

    List<ScoredPoint> aboveHalf = await(store.search(request(SearchMode.HYBRID, 5, 0.5f, Map.of())));
    List<ScoredPoint> otherChapter = await(store.search(request(SearchMode.HYBRID, 5, 0f, Map.of("chapter", List.of("ch1")))));

    assertThat(aboveHalf).hasSize(5).extracting(ScoredPoint::id).doesNotContain("brin");
    assertThat(aboveHalf).allSatisfy(hit -> assertThat(hit.score()).isGreaterThanOrEqualTo(0.5f));
    assertThat(otherChapter).hasSize(5).allSatisfy(hit -> assertThat(hit.payload().getString("chapter")).isEqualTo("ch1"));
  }

  @Test
  @DisplayName("a store written before hybrid search still opens and searches dense, and is hybrid once every point is written again")
  void oldStore() throws Exception {
    writeOldStore(dataDir.resolve("collections").resolve("book"));
    store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());

    assertThat(await(store.collectionInfo("book", Deadline.inMillis(30_000))).hybrid()).isFalse();
    assertThat(await(store.collectionInfo("book", Deadline.inMillis(30_000))).pointsCount()).isEqualTo(points.size());
    List<ScoredPoint> asked = await(store.search(request(SearchMode.HYBRID, 5, 0f, Map.of())));
    List<ScoredPoint> dense = await(store.search(request(SearchMode.DENSE, 5, 0f, Map.of())));
    assertThat(asked).isEqualTo(dense);

    await(store.upsert("book", points)); // a re-ingest rewrites every point
    assertThat(await(store.collectionInfo("book", Deadline.inMillis(30_000))).hybrid()).isTrue();
    assertThat(await(store.search(request(SearchMode.HYBRID, 5, 0f, Map.of()))).get(0).id()).isEqualTo("brin");
  }

  /** The files the previous version wrote: no keyword field. */
  private void writeOldStore(Path dir) throws Exception {
    Files.createDirectories(dir.resolve("index"));
    Files.writeString(dir.resolve("collection.json"), new JsonObject().put("vector_size", DIM).put("distance", "Cosine")
        .put("indexed_keys", new io.vertx.core.json.JsonArray().add("chapter")).encodePrettily(), StandardCharsets.UTF_8);
    try (FSDirectory directory = FSDirectory.open(dir.resolve("index"));
         IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
      for (Point p : points) {
        Document doc = new Document();
        doc.add(new StringField("id", p.id(), Field.Store.YES));
        doc.add(new KnnFloatVectorField("vector", p.vector(), VectorSimilarityFunction.COSINE));
        doc.add(new StoredField("payload", p.payload().encode()));
        doc.add(new StringField("k.chapter", p.payload().getString("chapter"), Field.Store.NO));
        writer.addDocument(doc);
      }
      writer.commit();
    }
  }

  @Test
  @DisplayName("a chunk whose keyword text has no token left (stop words, symbols) does not make the collection dense")
  void tokenlessChunk() {
    store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
    points.add(new Point("empty", KEYWORD_VECTOR, new JsonObject().put("page_title", "About").put("text", "{ } ...")));
    await(store.createCollection("book", DIM, List.of("chapter")).compose(v -> store.upsert("book", points)));

    assertThat(await(store.collectionInfo("book", Deadline.inMillis(30_000))).hybrid()).isTrue();
    assertThat(await(store.search(request(SearchMode.HYBRID, 5, 0f, Map.of()))).get(0).id()).isEqualTo("brin");
  }

  @Test
  @DisplayName("the request's fusion ranks: keyword weight 0 keeps the dense order, dense weight 0 puts the keyword match first")
  void fusionWeights() {
    store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
    await(store.createCollection("book", DIM, List.of("chapter")).compose(v -> store.upsert("book", points)));

    List<ScoredPoint> dense = await(store.search(request(SearchMode.DENSE, 10, 0f, Map.of())));
    List<ScoredPoint> noKeywords = await(store.search(new SearchRequest("book", QUERY_VECTOR, 10, 0f, Map.of(),
        Deadline.in(Duration.ofSeconds(10)), QUERY, SearchMode.HYBRID, new Fusion(60, 1.0, 0.0, 40))));
    List<ScoredPoint> onlyKeywords = await(store.search(new SearchRequest("book", QUERY_VECTOR, 10, 0f, Map.of(),
        Deadline.in(Duration.ofSeconds(10)), "block range", SearchMode.HYBRID, new Fusion(60, 0.0, 1.0, 40))));

    assertThat(noKeywords).extracting(ScoredPoint::id).isEqualTo(dense.stream().map(ScoredPoint::id).toList());
    assertThat(onlyKeywords.get(0).id()).isEqualTo("brin");
    // the other hits tie at 0 and follow by cosine
    List<Float> rest = onlyKeywords.subList(1, onlyKeywords.size()).stream().map(ScoredPoint::score).toList();
    assertThat(rest).isSortedAccordingTo(java.util.Comparator.reverseOrder());
  }

  private static SearchRequest request(SearchMode mode, int limit, float threshold, Map<String, List<Object>> filter) {
    return new SearchRequest("book", QUERY_VECTOR, limit, threshold, filter, Deadline.in(Duration.ofSeconds(10)), QUERY, mode);
  }

  private static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
