package dev.ragretrieval.ingest;

import dev.ragretrieval.upstream.Deadline;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.embedding.EmbeddingTestConfigs;
import dev.ragretrieval.embedding.EmbeddingVerticle;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.testing.CountingPageSource;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Ingestion into the embedded store with embeddings from the in-process Cohere server. */
@ExtendWith(VertxExtension.class)
class IngestorTest {

  private static final int DIM = 64;
  private static final List<String> KEYS = List.of("chapter", "section", "source_url");

  @TempDir
  Path dataDir;

  @TempDir
  Path docs;

  private CohereTestServer cohere;
  private EmbeddingProvider provider;
  private VectorStore store;
  private Ingestor ingestor;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext test) {
    CohereTestServer.start(vertx, "test-key", DIM).compose(server -> {
      cohere = server;
      provider = EmbeddingProviders.create(vertx, EmbeddingTestConfigs.cohere(server.baseUrl(), "test-key", DIM, 2), dev.ragretrieval.observability.RagMetrics.detached());
      return EmbeddingVerticle.deploy(vertx, provider);
    }).onComplete(test.succeeding(id -> {
      store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
      ingestor = new Ingestor(vertx, store, new EmbeddingClient(vertx)::embed, Progress.NONE);
      test.completeNow();
    }));
  }

  @AfterEach
  void stop(VertxTestContext test) {
    store.close().compose(v -> provider.close()).onComplete(test.succeedingThenComplete());
  }

  private static Ingestor.Options options() {
    return Ingestor.Options.of("book", false, KEYS).withBatchSize(16);
  }

  @Test
  @DisplayName("the sample book is stored with its payload; ingesting it again changes nothing")
  void reingestIsIdempotent(VertxTestContext test) {
    List<Page> pages = SampleBook.pages();
    ingestor.ingest(pages, options()).compose(first -> {
      test.verify(() -> {
        assertThat(first.ok()).isTrue();
        assertThat(first.pages()).isEqualTo(21);
        assertThat(first.chunks()).isGreaterThan(21).isEqualTo(first.upserted());
        assertThat(first.deleted()).isZero();
      });
      return store.collectionInfo("book", Deadline.inMillis(30_000)).map(info -> {
        test.verify(() -> {
          assertThat(info.pointsCount()).isEqualTo(first.chunks());
          assertThat(info.vectorSize()).isEqualTo(DIM);
        });
        return first;
      });
    }).compose(first -> ingestor.ingest(pages, options()).map(second -> {
      test.verify(() -> {
        assertThat(second.chunks()).isEqualTo(first.chunks());
        assertThat(second.deleted()).isZero();
      });
      return second;
    })).compose(second -> store.collectionInfo("book", Deadline.inMillis(30_000)).map(info -> {
      test.verify(() -> assertThat(info.pointsCount()).isEqualTo(second.chunks()));
      return info;
    })).compose(info -> store.facet("book", "chapter", 10, Deadline.in(java.time.Duration.ofSeconds(10)))).onComplete(test.succeeding(chapters -> test.verify(() -> {
      assertThat(chapters).extracting(c -> c.value()).containsExactlyInAnyOrder("module-1-ros2",
          "module-2-simulation", "module-3-perception", "module-4-humanoid-control", "module-5-vla");
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("a page that lost a section loses that section's chunks on re-ingest; other pages keep theirs")
  void changedPageLosesStaleChunks(Vertx vertx, VertxTestContext test) throws Exception {
    Path module = Files.createDirectories(docs.resolve("docs/mod-a"));
    String full = "---\ntitle: Page A\n---\n\n## Keep\n\nThis section stays.\n\n## Drop\n\nThis section goes away.\n";
    Files.writeString(module.resolve("a.md"), full);
    Files.writeString(module.resolve("b.md"), "# Page B\n\n## Other\n\nAnother page.\n");
    ingestor.ingest(MarkdownFolder.read(docs, null), options())
        .compose(first -> {
          test.verify(() -> assertThat(first.chunks()).isEqualTo(3));
          try {
            Files.writeString(module.resolve("a.md"), "---\ntitle: Page A\n---\n\n## Keep\n\nThis section stays.\n");
            return ingestor.ingest(MarkdownFolder.read(docs, null), options());
          } catch (Exception e) {
            return Future.failedFuture(e);
          }
        })
        .compose(second -> {
          test.verify(() -> {
            assertThat(second.chunks()).isEqualTo(2);
            assertThat(second.deleted()).isEqualTo(1);
          });
          return store.facet("book", "section", 10, Deadline.in(java.time.Duration.ofSeconds(10)));
        })
        .onComplete(test.succeeding(sections -> test.verify(() -> {
          assertThat(sections).extracting(c -> c.value()).containsExactlyInAnyOrder("Keep", "Other");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a batch the embedder keeps failing is reported, its pages keep their old chunks, and a rerun completes the job")
  void failedBatchIsReportedAndRerunCompletes(VertxTestContext test) {
    List<Page> pages = SampleBook.pages().subList(0, 3);
    cohere.failNext(1000, 500, null);
    // the model is known (as the CLI's start-up check gives it), so the run itself makes no check call
    ingestor.ingest(pages, options().withBatchSize(96).withEmbedder(EmbeddingTestConfigs.COHERE_MODEL, DIM))
        .compose(failed -> {
      test.verify(() -> {
        assertThat(failed.ok()).isFalse();
        assertThat(failed.failed()).isEqualTo(failed.chunks());
        assertThat(failed.upserted()).isZero();
        assertThat(failed.errors()).isNotEmpty();
        assertThat(failed.failedPages()).containsExactlyElementsOf(pages.stream().map(Page::sourceUrl).toList());
      });
      cohere.reset();
      return ingestor.ingest(pages, options());
    }).compose(rerun -> {
      test.verify(() -> assertThat(rerun.ok()).isTrue());
      return store.collectionInfo("book", Deadline.inMillis(30_000)).map(info -> {
        test.verify(() -> assertThat(info.pointsCount()).isEqualTo(rerun.chunks()));
        return info;
      });
    }).onComplete(test.succeedingThenComplete());
  }

  @Test
  @DisplayName("pages are read only as far ahead as the embed queue holds; once the embedder answers, every page is stored")
  void readingStaysAheadOfEmbeddingByTheQueueOnly(Vertx vertx, VertxTestContext test) {
    // 60 pages of 10 chunks, batches of 16 and 4 lanes: the queue holds 256 chunks
    List<Page> pages = new ArrayList<>();
    for (int p = 0; p < 60; p++) {
      List<Page.Section> sections = new ArrayList<>();
      for (int s = 0; s < 10; s++) {
        sections.add(new Page.Section("Part " + s, "Page " + p + " part " + s + " explains one more thing about joints."));
      }
      pages.add(new Page("docs/p" + p, "p" + p, "Page " + p, "ch", null, "markdown", sections));
    }
    AtomicInteger reads = new AtomicInteger();
    AtomicInteger held = new AtomicInteger();
    Promise<Void> answer = Promise.promise();
    EmbeddingClient client = new EmbeddingClient(vertx);
    Embedder gated = (texts, type, deadline) -> {
      held.incrementAndGet();
      return answer.future().compose(v -> client.embed(texts, type, deadline));
    };
    Future<Ingestor.Summary> run = new Ingestor(vertx, store, gated, Progress.NONE)
        .ingest(new CountingPageSource(pages, reads), options().withEmbedder(EmbeddingTestConfigs.COHERE_MODEL, DIM));
    AtomicInteger lastReads = new AtomicInteger(-1);
    // once the 4 lanes hold their calls and reading has stopped moving, the run is as far ahead as it goes
    vertx.setPeriodic(200, id -> {
      int now = reads.get();
      if (held.get() < 4 || now != lastReads.getAndSet(now)) {
        return;
      }
      vertx.cancelTimer(id);
      test.verify(() -> {
        // 64 chunks in the lanes, at most 256 queued, and one page of 10 per reading lane past the limit
        assertThat(now * 10).isLessThanOrEqualTo(64 + 256 + Ingestor.PREPARE_LANES * 10);
        assertThat(now).isLessThan(pages.size());
      });
      answer.complete();
    });
    run.onComplete(test.succeeding(summary -> test.verify(() -> {
      assertThat(summary.ok()).isTrue();
      assertThat(summary.chunks()).isEqualTo(600);
      assertThat(summary.embedded()).isEqualTo(600);
      assertThat(reads.get()).isEqualTo(pages.size());
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("a page without text of its own (a redirect stub) makes no chunk, is not counted, and a notice names it")
  void textlessPageIsNamed(VertxTestContext test) {
    Page stub = HtmlReader.read("https://docs.example.org/old/plugins.html", "<html><head><title>Redirecting...</title>"
        + "<meta http-equiv='refresh' content='0; url=../dev/plugins.html'></head><body>Redirecting...</body></html>");
    List<Page> pages = List.of(SampleBook.pages().get(0), stub);
    ingestor.ingest(pages, options()).onComplete(test.succeeding(summary -> test.verify(() -> {
      assertThat(summary.ok()).isTrue();
      assertThat(summary.pages()).isEqualTo(1);
      assertThat(summary.notices()).anySatisfy(notice -> assertThat(notice)
          .startsWith("1 page had no text of its own").endsWith("made no chunk: https://docs.example.org/old/plugins.html"));
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("recreate drops the collection first, so only the newly ingested page remains")
  void recreate(VertxTestContext test) {
    List<Page> pages = SampleBook.pages();
    ingestor.ingest(pages, options())
        .compose(first -> ingestor.ingest(pages.subList(0, 1), Ingestor.Options.of("book", true, KEYS)))
        .compose(second -> store.collectionInfo("book", Deadline.inMillis(30_000)).map(info -> {
          test.verify(() -> assertThat(info.pointsCount()).isEqualTo(second.chunks()));
          return info;
        }))
        .onComplete(test.succeedingThenComplete());
  }

  @Test
  @DisplayName("re-ingesting a folder removes the pages no longer in it, all their chunks, and counts them")
  void mirrorRemovesMissingPages(VertxTestContext test) throws Exception {
    Path module = Files.createDirectories(docs.resolve("docs/mod-a"));
    Files.writeString(module.resolve("a.md"), "# Page A\n\n## One\n\nFirst.\n\n## Two\n\nSecond.\n");
    Files.writeString(module.resolve("b.md"), "# Page B\n\n## Other\n\nAnother page.\n");
    Ingestor.Options mirror = options().fromSource(docs.toString(), true, java.util.Set.of());
    ingestor.ingest(MarkdownFolder.read(docs, null), mirror)
        .compose(first -> {
          test.verify(() -> assertThat(first.removedDocuments()).isZero());
          try {
            Files.delete(module.resolve("a.md"));
            return ingestor.ingest(MarkdownFolder.read(docs, null), mirror);
          } catch (Exception e) {
            return Future.failedFuture(e);
          }
        })
        .compose(second -> {
          test.verify(() -> {
            assertThat(second.removedDocuments()).isEqualTo(1);
            assertThat(second.removedChunks()).isEqualTo(2);
            assertThat(second.describe()).contains("1 document removed (2 chunks)");
          });
          return store.facet("book", "source_url", 10, Deadline.in(java.time.Duration.ofSeconds(10)));
        })
        .onComplete(test.succeeding(urls -> test.verify(() -> {
          assertThat(urls).extracting(c -> c.value()).containsExactly("docs/mod-a/b");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("without mirroring (--keep-missing), or for another source, a missing page keeps its chunks")
  void keepMissingAndOtherSourcesStay(VertxTestContext test) throws Exception {
    Path module = Files.createDirectories(docs.resolve("docs/mod-a"));
    Files.writeString(module.resolve("a.md"), "# Page A\n\n## One\n\nFirst.\n");
    Files.writeString(module.resolve("b.md"), "# Page B\n\n## Other\n\nAnother page.\n");
    Ingestor.Options mirror = options().fromSource(docs.toString(), true, java.util.Set.of());
    Ingestor.Options keep = options().fromSource(docs.toString(), false, java.util.Set.of());
    Ingestor.Options otherSource = options().fromSource("/elsewhere", true, java.util.Set.of());
    ingestor.ingest(MarkdownFolder.read(docs, null), mirror)
        .compose(first -> {
          try {
            Files.delete(module.resolve("a.md"));
            return ingestor.ingest(MarkdownFolder.read(docs, null), keep);
          } catch (Exception e) {
            return Future.failedFuture(e);
          }
        })
        .compose(kept -> {
          test.verify(() -> assertThat(kept.removedDocuments()).isZero());
          // a run from another source never touches this folder's documents
          return ingestor.ingest(List.of(), otherSource);
        })
        .compose(other -> store.facet("book", "source_url", 10, Deadline.in(java.time.Duration.ofSeconds(10))))
        .onComplete(test.succeeding(urls -> test.verify(() -> {
          assertThat(urls).extracting(c -> c.value()).containsExactlyInAnyOrder("docs/mod-a/a", "docs/mod-a/b");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a page that could not be fetched this time (kept as present) is not removed")
  void pagesFailedForNowAreKept(VertxTestContext test) throws Exception {
    Path module = Files.createDirectories(docs.resolve("docs/mod-a"));
    Files.writeString(module.resolve("a.md"), "# Page A\n\n## One\n\nFirst.\n");
    Files.writeString(module.resolve("b.md"), "# Page B\n\n## Other\n\nAnother page.\n");
    ingestor.ingest(MarkdownFolder.read(docs, null), options().fromSource("site", true, java.util.Set.of()))
        .compose(first -> {
          try {
            Files.delete(module.resolve("a.md"));
            return ingestor.ingest(MarkdownFolder.read(docs, null),
                options().fromSource("site", true, java.util.Set.of("docs/mod-a/a")));
          } catch (Exception e) {
            return Future.failedFuture(e);
          }
        })
        .onComplete(test.succeeding(second -> test.verify(() -> {
          assertThat(second.removedDocuments()).isZero();
          test.completeNow();
        })));
  }
}
