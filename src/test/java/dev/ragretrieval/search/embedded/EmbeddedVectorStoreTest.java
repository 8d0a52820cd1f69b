package dev.ragretrieval.search.embedded;

import dev.ragretrieval.upstream.Deadline;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(VertxExtension.class)
class EmbeddedVectorStoreTest {

  private static final String C = "book";

  @TempDir
  Path dataDir;

  private EmbeddedVectorStore store;

  @BeforeEach
  void seed(Vertx vertx, VertxTestContext test) {
    store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
    store.createCollection(C, 3, List.of("chapter", "section"))
        .compose(v -> store.upsert(C, List.of(
            point("a", new float[] {1, 0, 0}, "ch1", "Nodes", 0),
            point("b", new float[] {0.9f, 0.1f, 0}, "ch1", "Topics", 1),
            point("c", new float[] {0.7f, 0.7f, 0}, "ch2", "Nodes", 2),
            point("d", new float[] {0, 1, 0}, "ch2", "Actions", 3),
            point("e", new float[] {-1, 0, 0}, "ch3", "Opposite", 4))))
        .onComplete(test.succeedingThenComplete());
  }

  @AfterEach
  void close(VertxTestContext test) {
    store.close().onComplete(test.succeedingThenComplete());
  }

  private static Point point(String id, float[] vector, String chapter, String section, int index) {
    return new Point(id, vector, new JsonObject().put("text", "text " + id).put("chapter", chapter)
        .put("section", section).put("chunk_index", index).put("source_url", "u/" + chapter)
        .put("tags", new JsonArray().add("t-" + id).add("all")));
  }

  private static SearchRequest search(float[] vector, int limit, float threshold, Map<String, List<Object>> filter) {
    return new SearchRequest(C, vector, limit, threshold, filter, Deadline.in(java.time.Duration.ofMillis(10_000)));
  }

  private static List<String> ids(List<ScoredPoint> hits) {
    return hits.stream().map(ScoredPoint::id).toList();
  }

  @Test
  @DisplayName("search returns the nearest points best first, at most limit, with the cosine similarity as score")
  void nearestFirst(VertxTestContext test) {
    store.search(search(new float[] {1, 0, 0}, 3, 0f, Map.of())).onComplete(test.succeeding(hits -> test.verify(() -> {
      assertThat(ids(hits)).containsExactly("a", "b", "c");
      assertThat(hits.get(0).score()).isCloseTo(1.0f, within(1e-4f));
      double cosB = 0.9 / Math.sqrt(0.82);
      assertThat((double) hits.get(1).score()).isCloseTo(cosB, within(1e-4));
      assertThat((double) hits.get(2).score()).isCloseTo(Math.sqrt(0.5), within(1e-4));
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("score_threshold drops hits below it; negative similarities never pass a zero threshold")
  void threshold(VertxTestContext test) {
    store.search(search(new float[] {1, 0, 0}, 10, 0.8f, Map.of())).compose(high -> {
      test.verify(() -> assertThat(ids(high)).containsExactly("a", "b"));
      return store.search(search(new float[] {1, 0, 0}, 10, 0f, Map.of()));
    }).onComplete(test.succeeding(all -> test.verify(() -> {
      assertThat(ids(all)).containsExactly("a", "b", "c", "d");
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("filters: one value matches exactly, several match any, keys combine with AND, arrays match any element")
  void filters(VertxTestContext test) {
    float[] q = {1, 0, 0};
    store.search(search(q, 10, 0f, Map.of("chapter", List.of("ch2")))).compose(exact -> {
      test.verify(() -> assertThat(ids(exact)).containsExactly("c", "d"));
      return store.search(search(q, 10, 0f, Map.of("section", List.of("Nodes", "Topics"))));
    }).compose(any -> {
      test.verify(() -> assertThat(ids(any)).containsExactly("a", "b", "c"));
      return store.search(search(q, 10, 0f, Map.of("section", List.of("Nodes"), "chapter", List.of("ch2"))));
    }).compose(both -> {
      test.verify(() -> assertThat(ids(both)).containsExactly("c"));
      return store.search(search(q, 10, -1f, Map.of("chunk_index", List.of(4), "tags", List.of("all"))));
    }).compose(numeric -> {
      test.verify(() -> assertThat(ids(numeric)).containsExactly("e"));
      return store.search(search(q, 10, 0f, Map.of("chapter", List.of("nope"))));
    }).onComplete(test.succeeding(none -> test.verify(() -> {
      assertThat(none).isEmpty();
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("the payload comes back whole, and an upsert with the same id replaces the point")
  void payloadRoundTripAndUpsert(VertxTestContext test) {
    JsonObject payload = new JsonObject().put("text", "new").put("nested", new JsonObject().put("x", 1.5))
        .put("list", new JsonArray().add(1).add("two")).put("flag", true).put("none", (Object) null);
    store.upsert(C, List.of(new Point("a", new float[] {0, 0, 1}, payload)))
        .compose(v -> store.search(search(new float[] {0, 0, 1}, 1, 0.5f, Map.of())))
        .compose(hits -> {
          test.verify(() -> {
            assertThat(ids(hits)).containsExactly("a");
            assertThat(hits.get(0).payload()).isEqualTo(payload);
          });
          return store.collectionInfo(C, Deadline.inMillis(30_000));
        })
        .onComplete(test.succeeding(info -> test.verify(() -> {
          assertThat(info.pointsCount()).isEqualTo(5);
          assertThat(info.vectorSize()).isEqualTo(3);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a missing collection is COLLECTION_NOT_FOUND for every read and write")
  void missingCollection(VertxTestContext test) {
    SearchRequest request = new SearchRequest("nope", new float[] {1, 0, 0}, 3, 0f, Map.of(),
        Deadline.in(java.time.Duration.ofMillis(10_000)));
    List<Future<?>> calls = List.of(store.search(request), store.collectionInfo("nope", Deadline.inMillis(30_000)),
        store.upsert("nope", List.of()), store.facet("nope", "chapter", 10, Deadline.in(java.time.Duration.ofSeconds(10))),
        store.deleteStale("nope", "u", List.of()), store.searchBatch(List.of(request)));
    Future.join(calls).onComplete(done -> test.verify(() -> {
      for (Future<?> call : calls) {
        assertThat(call.failed()).isTrue();
        assertThat(((ServiceException) call.cause()).code()).isEqualTo(ErrorCode.COLLECTION_NOT_FOUND);
      }
      test.completeNow();
    }));
  }

  @Test
  @DisplayName("a vector of the wrong size is refused with UPSTREAM_ERROR")
  void wrongVectorSize(VertxTestContext test) {
    store.search(search(new float[] {1, 0}, 3, 0f, Map.of())).onComplete(test.failing(err -> test.verify(() -> {
      assertThat(((ServiceException) err).code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("deleteStale removes a source's points except the kept ids, and leaves other sources alone")
  void deleteStale(VertxTestContext test) {
    store.deleteStale(C, "u/ch1", List.of("a"))
        .compose(v -> store.search(search(new float[] {1, 0, 0}, 10, -1f, Map.of())))
        .onComplete(test.succeeding(hits -> test.verify(() -> {
          assertThat(ids(hits)).containsExactlyInAnyOrder("a", "c", "d", "e");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("facets count a key's values, most frequent first, and honour deletions")
  void facets(VertxTestContext test) {
    store.facet(C, "chapter", 10, Deadline.in(java.time.Duration.ofSeconds(10))).compose(counts -> {
      test.verify(() -> assertThat(counts).containsExactly(
          new FacetCount("ch1", 2), new FacetCount("ch2", 2), new FacetCount("ch3", 1)));
      return store.deleteStale(C, "u/ch2", List.of()).compose(v -> store.facet(C, "chapter", 1, Deadline.in(java.time.Duration.ofSeconds(10))));
    }).onComplete(test.succeeding(counts -> test.verify(() -> {
      assertThat(counts).containsExactly(new FacetCount("ch1", 2));
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("collections lists the collections on disk by name with point counts and vector sizes, also after a restart")
  void listsCollections(Vertx vertx, VertxTestContext test) {
    java.time.Duration second = java.time.Duration.ofSeconds(5);
    store.createCollection("another", 2, List.of())
        .compose(v -> store.close())
        .compose(v -> {
          store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
          return store.collections(Deadline.in(second));
        })
        .onComplete(test.succeeding(listed -> test.verify(() -> {
          assertThat(listed).containsExactly(
              new dev.ragretrieval.search.CollectionInfo("another", 2, 0, true),
              new dev.ragretrieval.search.CollectionInfo(C, 3, 5, true));
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("collections of an empty data directory is an empty list")
  void noCollections(Vertx vertx, VertxTestContext test) {
    EmbeddedVectorStore empty = new EmbeddedVectorStore(vertx, dataDir.resolve("nothing-here"), dev.ragretrieval.observability.RagMetrics.detached());
    empty.collections(Deadline.in(java.time.Duration.ofSeconds(5)))
        .eventually(() -> empty.close())
        .onComplete(test.succeeding(listed -> test.verify(() -> {
          assertThat(listed).isEmpty();
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("points survive closing and reopening the store; a deleted collection is gone")
  void persistence(Vertx vertx, VertxTestContext test) {
    store.close()
        .compose(v -> {
          store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
          return store.collectionInfo(C, Deadline.inMillis(30_000));
        })
        .compose(info -> {
          test.verify(() -> assertThat(info.pointsCount()).isEqualTo(5));
          return store.search(search(new float[] {0, 1, 0}, 1, 0f, Map.of()));
        })
        .compose(hits -> {
          test.verify(() -> assertThat(ids(hits)).containsExactly("d"));
          return store.deleteCollection(C).compose(v -> store.deleteCollection(C));
        })
        .compose(v -> store.collectionInfo(C, Deadline.inMillis(30_000)))
        .onComplete(test.failing(err -> test.verify(() -> {
          assertThat(((ServiceException) err).code()).isEqualTo(ErrorCode.COLLECTION_NOT_FOUND);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("vectors wider than Lucene's default 1024 dimensions (OpenAI's 1536) are stored and found")
  void wideVectors(VertxTestContext test) {
    float[] v = new float[1536];
    v[7] = 1;
    store.createCollection("wide", 1536, List.of())
        .compose(x -> store.upsert("wide", List.of(new Point("w", v, new JsonObject().put("text", "w")))))
        .compose(x -> store.search(new SearchRequest("wide", v, 1, 0.5f, Map.of(), Deadline.in(java.time.Duration.ofMillis(10_000)))))
        .onComplete(test.succeeding(hits -> test.verify(() -> {
          assertThat(ids(hits)).containsExactly("w");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a read-only store sees what a writer commits later, and refuses to write")
  void readOnlySeesCommitsAndRefusesWrites(Vertx vertx, VertxTestContext test) {
    EmbeddedVectorStore reader = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached(), true);
    reader.collectionInfo(C, Deadline.inMillis(30_000))
        .compose(before -> {
          test.verify(() -> assertThat(before.pointsCount()).isEqualTo(5));
          return store.upsert(C, List.of(point("f", new float[] {0, 0, 1}, "ch4", "New", 5)));
        })
        .compose(v -> reader.collectionInfo(C, Deadline.inMillis(30_000)))
        .compose(after -> {
          test.verify(() -> assertThat(after.pointsCount()).isEqualTo(6));
          return reader.upsert(C, List.of(point("g", new float[] {0, 0, 1}, "ch4", "New", 6)));
        })
        .onComplete(test.failing(err -> test.verify(() -> {
          assertThat(ServiceException.from(err).getMessage()).contains("read-only");
          reader.close().onComplete(test.succeedingThenComplete());
        })));
  }

  @Test
  @DisplayName("checkWritable fails naming the process that is writing the collection, and passes once it is done")
  void checkWritableNamesTheWriter(VertxTestContext test) throws Exception {
    Path index = dataDir.resolve("collections").resolve(C).resolve("index");
    org.apache.lucene.store.Directory dir = org.apache.lucene.store.FSDirectory.open(index);
    org.apache.lucene.store.Lock lock = dir.obtainLock(org.apache.lucene.index.IndexWriter.WRITE_LOCK_NAME);
    java.nio.file.Files.writeString(index.resolveSibling(LuceneCollection.WRITER_FILE),
        new JsonObject().put("pid", ProcessHandle.current().pid()).put("command", "rag-retrieval serve").encode());
    store.checkWritable(C).map("passed while locked")
        .recover(err -> {
          test.verify(() -> assertThat(ServiceException.from(err).getMessage())
              .contains("collection 'book'", "is being written by process " + ProcessHandle.current().pid()));
          try {
            lock.close();
            dir.close();
          } catch (java.io.IOException e) {
            return Future.failedFuture(e);
          }
          return store.checkWritable(C).map("passed after release");
        })
        .onComplete(test.succeeding(outcome -> test.verify(() -> {
          assertThat(outcome).isEqualTo("passed after release");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("deleteMissing removes the points of a source whose source_url is not kept, and answers them per document")
  void deleteMissing(VertxTestContext test) {
    List<Point> sourced = List.of(
        new Point("s1", new float[] {1, 0, 0}, new JsonObject().put("source_url", "x/1").put("ingest_source", "S")),
        new Point("s2", new float[] {1, 0, 0}, new JsonObject().put("source_url", "x/2").put("ingest_source", "S")),
        new Point("s3", new float[] {1, 0, 0}, new JsonObject().put("source_url", "x/2").put("ingest_source", "S")));
    store.upsert(C, sourced)
        .compose(v -> store.deleteMissing(C, "S", List.of("x/1")))
        .compose(removed -> {
          test.verify(() -> assertThat(removed).containsExactly(new FacetCount("x/2", 2)));
          return store.collectionInfo(C, Deadline.inMillis(30_000));
        })
        .onComplete(test.succeeding(info -> test.verify(() -> {
          assertThat(info.pointsCount()).isEqualTo(6); // the 5 seeded points have no ingest_source
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("the dense search finds the true nearest points: 2,000 random vectors, 40 questions, top 10 as a full scan")
  void nearestAsAFullScan(Vertx vertx, VertxTestContext test) {
    java.util.Random random = new java.util.Random(7);
    int dims = 48;
    List<Point> points = new java.util.ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      points.add(new Point("p" + i, randomVector(random, dims), new JsonObject().put("text", "p" + i)));
    }
    List<float[]> questions = new java.util.ArrayList<>();
    for (int q = 0; q < 40; q++) {
      questions.add(randomVector(random, dims));
    }
    store.createCollection("random", dims, List.of())
        .compose(v -> store.upsert("random", points))
        .compose(v -> io.vertx.core.Future.all(questions.stream()
            .map(q -> store.search(new SearchRequest("random", q, 10, -1f, Map.of(),
                Deadline.in(java.time.Duration.ofMillis(30_000)))))
            .toList()))
        .onComplete(test.succeeding(all -> test.verify(() -> {
          for (int q = 0; q < questions.size(); q++) {
            List<ScoredPoint> hits = all.resultAt(q);
            assertThat(ids(hits)).as("question %d", q).containsExactlyElementsOf(fullScan(points, questions.get(q), 10));
          }
          test.completeNow();
        })));
  }

  private static float[] randomVector(java.util.Random random, int dims) {
    float[] v = new float[dims];
    for (int i = 0; i < dims; i++) {
      v[i] = (float) random.nextGaussian();
    }
    return v;
  }

  private static List<String> fullScan(List<Point> points, float[] q, int k) {
    return points.stream()
        .sorted(java.util.Comparator.comparingDouble((Point p) -> -cos(p.vector(), q)))
        .limit(k).map(Point::id).toList();
  }

  private static double cos(float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    return dot / Math.sqrt(na * nb);
  }
}
