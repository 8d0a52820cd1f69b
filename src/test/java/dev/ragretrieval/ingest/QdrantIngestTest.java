package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.embedding.EmbeddingTestConfigs;
import dev.ragretrieval.embedding.EmbeddingVerticle;
import dev.ragretrieval.search.KeywordAnalysis;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.qdrant.QdrantPayloads;
import dev.ragretrieval.search.qdrant.QdrantVectorStore;
import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.testing.QdrantTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Ingestion into Qdrant (the in-process gRPC server) with Cohere embeddings (the in-process HTTP server). */
@ExtendWith(VertxExtension.class)
class QdrantIngestTest {

  private static final int DIM = 32;
  private static final List<String> KEYS = List.of("chapter", "section", "source_url", "document_id");

  private QdrantTestServer qdrant;
  private CohereTestServer cohere;
  private EmbeddingProvider provider;
  private QdrantVectorStore store;
  private Ingestor ingestor;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext test) {
    QdrantTestServer.start(vertx)
        .compose(q -> {
          qdrant = q;
          return CohereTestServer.start(vertx, "k", DIM);
        })
        .compose(c -> {
          cohere = c;
          provider = EmbeddingProviders.create(vertx, EmbeddingTestConfigs.cohere(c.baseUrl(), "k", DIM, 2), dev.ragretrieval.observability.RagMetrics.detached());
          return EmbeddingVerticle.deploy(vertx, provider);
        })
        .onComplete(test.succeeding(id -> {
          store = new QdrantVectorStore(vertx, new AppConfig.Qdrant(Optional.of("127.0.0.1"), qdrant.port(),
              Optional.empty(), false, "textbook_chunks", Set.of(), Duration.ofSeconds(5), 2), dev.ragretrieval.observability.RagMetrics.detached());
          ingestor = new Ingestor(vertx, store, new EmbeddingClient(vertx)::embed, Progress.NONE);
          test.completeNow();
        }));
  }

  @AfterEach
  void stop(VertxTestContext test) {
    Future.join(store.close(), provider.close())
        .compose(v -> Future.join(qdrant.stop(), cohere.stop()))
        .onComplete(test.succeedingThenComplete());
  }

  @Test
  @DisplayName("the sample book lands in a new Qdrant collection with payload indexes; re-ingesting keeps the count")
  void ingestsIntoQdrant(VertxTestContext test) {
    List<Page> pages = SampleBook.pages();
    Ingestor.Options options = Ingestor.Options.of("textbook_chunks", false, KEYS);
    ingestor.ingest(pages, options)
        .compose(first -> {
          test.verify(() -> {
            assertThat(first.ok()).isTrue();
            assertThat(qdrant.count("textbook_chunks")).isEqualTo(first.chunks());
            assertThat(qdrant.payloadIndexes("textbook_chunks")).containsKeys("chapter", "section", "source_url");
            String id = Chunker.pointId("docs/module-1-ros2/05-qos-profiles", 0);
            assertThat(qdrant.ids("textbook_chunks")).contains(id);
            assertThat(qdrant.payload("textbook_chunks", id).get("chapter").getStringValue()).isEqualTo("module-1-ros2");
          });
          return ingestor.ingest(pages, options).map(second -> {
            test.verify(() -> {
              assertThat(second.ok()).isTrue();
              assertThat(qdrant.count("textbook_chunks")).isEqualTo(first.chunks());
            });
            return second;
          });
        })
        .onComplete(test.succeedingThenComplete());
  }

  @Test
  @DisplayName("ingest creates the bm25 sparse vector with the IDF modifier, and every chunk gets its BM25 vector from a qdrant/bm25 document")
  void ingestsSparseVectors(VertxTestContext test) {
    ingestor.ingest(SampleBook.pages(), Ingestor.Options.of("textbook_chunks", false, KEYS))
        .onComplete(test.succeeding(report -> test.verify(() -> {
          assertThat(qdrant.sparseVectorConfig("textbook_chunks"))
              .containsExactly(java.util.Map.entry("bm25", io.qdrant.client.grpc.Collections.Modifier.Idf));
          assertThat(qdrant.ids("textbook_chunks")).allSatisfy(id ->
              assertThat(qdrant.sparseVectors("textbook_chunks", id).get("bm25")).isNotEmpty());
          String id = Chunker.pointId("docs/module-1-ros2/05-qos-profiles", 0);
          assertThat(qdrant.sparseVectors("textbook_chunks", id).get("bm25"))
              .containsKey(dev.ragretrieval.testing.QdrantTestBm25.termId("qos"));
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a site fetched while it is ingested: BM25's average length is measured on more than the first batch"
      + " (here every page, the site being small), not on the short pages that came first")
  void averageLengthOfAStreamedSite(Vertx vertx, VertxTestContext test) {
    List<Page> pages = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      pages.add(new Page("https://site.example/short-" + i, "short-" + i, "Short " + i, null, null, "html",
          List.of(new Page.Section(null, "A short page."))));
    }
    for (int i = 0; i < 40; i++) {
      pages.add(new Page("https://site.example/long-" + i, "long-" + i, "Long " + i, null, null, "html",
          List.of(new Page.Section("Part", ("Balancing a walking robot needs its zero moment point inside the support"
              + " polygon, step after step, page " + i + ". ").repeat(6)))));
    }
    // one page at a time, a few milliseconds apart, as a site's pages arrive; no allPages(): the run
    // cannot measure them all up front
    PageSource fetched = new PageSource() {
      private int next;

      @Override
      public Future<List<SourcePage>> next(int max) {
        if (next >= pages.size()) {
          return Future.succeededFuture(List.of());
        }
        Page page = pages.get(next++);
        return vertx.timer(3).map(t -> List.of(SourcePage.of(page)));
      }
    };
    double expected = pages.stream().flatMap(page -> new Chunker().chunk(page).stream())
        .mapToDouble(chunk -> KeywordAnalysis.tokens(KeywordText.of(chunk.payload())).size()).average().orElseThrow();
    ingestor.ingest(fetched, Ingestor.Options.of("site", false, KEYS).withBatchSize(4))
        .onComplete(test.succeeding(report -> test.verify(() -> {
          assertThat(report.pages()).isEqualTo(48);
          double avgLen = QdrantPayloads.fromValue(qdrant.layout("site").getMetadataMap()
              .get(QdrantVectorStore.AVG_LEN_KEY)) instanceof Number n ? n.doubleValue() : -1;
          assertThat(avgLen).isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-9));
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("on Qdrant, re-ingesting a source removes the pages no longer in it (delete by payload filter)")
  void mirrorRemovesMissingPages(VertxTestContext test) {
    List<Page> pages = SampleBook.pages();
    Ingestor.Options options = Ingestor.Options.of("textbook_chunks", false, KEYS)
        .fromSource("https://book.example/sitemap.xml", true, java.util.Set.of());
    Page dropped = pages.get(0);
    long droppedChunks = new Chunker().chunk(dropped).size();
    ingestor.ingest(pages, options)
        .compose(first -> ingestor.ingest(pages.subList(1, pages.size()), options).map(second -> {
          test.verify(() -> {
            assertThat(second.removedDocuments()).isEqualTo(1);
            assertThat(second.removedChunks()).isEqualTo(droppedChunks);
            assertThat(qdrant.count("textbook_chunks")).isEqualTo(first.chunks() - droppedChunks);
            assertThat(qdrant.ids("textbook_chunks")).doesNotContain(Chunker.pointId(dropped.sourceUrl(), 0));
            assertThat(qdrant.payloadIndexes("textbook_chunks")).containsKey("ingest_source");
          });
          return second;
        }))
        .onComplete(test.succeedingThenComplete());
  }
}
