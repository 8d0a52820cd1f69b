package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.embedding.EmbeddingTestConfigs;
import dev.ragretrieval.embedding.EmbeddingVerticle;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.StoredChunk;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import dev.ragretrieval.search.qdrant.QdrantVectorStore;
import dev.ragretrieval.testing.CountingPageSource;
import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.testing.QdrantTestServer;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Incremental ingest on both stores: the Qdrant test server (reading hashes back with Scroll) and
 * the embedded Lucene store (a term query). Embeddings come from the Cohere stand-in, whose count
 * of texts received is what the team would be billed for.
 */
class IncrementalIngestTest {

  private static final int DIM = 32;
  private static final List<String> KEYS = List.of("chapter", "section", "source_url");
  private static final String COLLECTION = "book";

  @TempDir
  Path dataDir;

  private final Vertx vertx = Vertx.vertx();
  private CohereTestServer cohere;
  private EmbeddingProvider provider;
  private QdrantTestServer qdrant;
  private VectorStore store;
  private final AtomicInteger embedCalls = new AtomicInteger();

  private void start(String kind) throws Exception {
    start(kind, 2);
  }

  /** {@code attempts}: how many times the provider itself sends each call. */
  private void start(String kind, int attempts) throws Exception {
    cohere = await(CohereTestServer.start(vertx, "k", DIM));
    provider = EmbeddingProviders.create(vertx, EmbeddingTestConfigs.cohere(cohere.baseUrl(), "k", DIM, attempts),
        RagMetrics.detached());
    await(EmbeddingVerticle.deploy(vertx, provider));
    if (kind.equals("qdrant")) {
      qdrant = await(QdrantTestServer.start(vertx));
      store = new QdrantVectorStore(vertx, new AppConfig.Qdrant(Optional.of("127.0.0.1"), qdrant.port(),
          Optional.empty(), false, COLLECTION, Set.of(), Duration.ofSeconds(5), 2), RagMetrics.detached());
    } else {
      store = new EmbeddedVectorStore(vertx, dataDir, RagMetrics.detached());
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (store != null) {
      await(store.close());
    }
    if (provider != null) {
      await(provider.close());
    }
    if (qdrant != null) {
      await(qdrant.stop());
    }
    await(vertx.close());
  }

  private Ingestor ingestor(Embedder embedder) {
    return new Ingestor(vertx, store, embedder, Progress.NONE);
  }

  /** The stand-in's embedder, counting the calls made through it. */
  private Embedder counted() {
    EmbeddingClient client = new EmbeddingClient(vertx);
    return (texts, type, deadline) -> {
      embedCalls.incrementAndGet();
      return client.embed(texts, type, deadline);
    };
  }


  private static Ingestor.Options options() {
    return Ingestor.Options.of(COLLECTION, false, KEYS).withBatchSize(8);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"qdrant", "embedded"})
  @DisplayName("an unchanged re-ingest embeds nothing but the start-up check and writes no point")
  void unchangedReingestWritesNothing(String kind) throws Exception {
    start(kind);
    List<Page> pages = SampleBook.pages();
    Ingestor.Summary first = await(ingestor(counted()).ingest(pages, options()));
    assertThat(first.ok()).isTrue();
    assertThat(first.embedded()).isEqualTo(first.chunks());
    assertThat(first.pagesNew()).isEqualTo(pages.size());
    Map<String, String> before = hashes();
    long textsBefore = cohere.inputCount();
    int upsertsBefore = qdrant == null ? 0 : qdrant.callCount("Upsert");
    int deletesBefore = qdrant == null ? 0 : qdrant.callCount("Delete");
    List<String> commitsBefore = commits();
    embedCalls.set(0);
    AtomicInteger reads = new AtomicInteger();

    Ingestor.Summary second = await(ingestor(counted()).ingest(new CountingPageSource(pages, reads), options()));

    assertThat(second.ok()).isTrue();
    assertThat(embedCalls.get()).as("embed calls: the one-text check only").isEqualTo(1);
    assertThat(cohere.inputCount() - textsBefore).isEqualTo(1);
    assertThat(second.embedded()).isZero();
    assertThat(second.textsSent()).isZero();
    assertThat(second.reused()).isEqualTo(first.chunks());
    assertThat(second.pagesUnchanged()).isEqualTo(pages.size());
    assertThat(second.pagesChanged() + second.pagesNew()).isZero();
    assertThat(reads.get()).as("pages read and chunked: their stored page hashes matched").isZero();
    if (qdrant != null) {
      assertThat(qdrant.callCount("Upsert")).isEqualTo(upsertsBefore);
      assertThat(qdrant.callCount("Delete")).isEqualTo(deletesBefore);
      assertThat(qdrant.callCount("SetPayload")).isZero();
      assertThat(qdrant.callCount("Scroll")).isPositive();
    } else {
      assertThat(commits()).as("Lucene commits").isEqualTo(commitsBefore);
    }
    assertThat(hashes()).isEqualTo(before);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"qdrant", "embedded"})
  @DisplayName("one edited page: only its changed chunks are embedded; a chunk it lost is deleted")
  void editedPageEmbedsOnlyChangedChunks(String kind) throws Exception {
    start(kind);
    Path docs = Files.createDirectories(dataDir.resolve("docs/docs/mod-a"));
    StringBuilder longPage = new StringBuilder("# Page A\n\n");
    for (int s = 0; s < 6; s++) {
      longPage.append("## Section ").append(s).append("\n\n").append(("Sentence " + s + " about robots. ").repeat(20))
          .append("\n\n");
    }
    Files.writeString(docs.resolve("a.md"), longPage.toString());
    Files.writeString(docs.resolve("b.md"), "# Page B\n\n## Other\n\nAnother page about simulation.\n");
    Path root = dataDir.resolve("docs");
    List<Page> original = MarkdownFolder.read(root, null);
    await(ingestor(counted()).ingest(original, options()));
    long textsBefore = cohere.inputCount();

    // one section rewritten, the last one removed
    String edited = longPage.toString().replace("Sentence 2 about robots.", "Sentence 2 about humanoids.");
    edited = edited.substring(0, edited.indexOf("## Section 5"));
    Files.writeString(docs.resolve("a.md"), edited);
    List<Page> changed = MarkdownFolder.read(root, null);
    Ingestor.Summary second = await(ingestor(counted()).ingest(changed, options()));

    Page oldA = original.stream().filter(p -> p.sourceUrl().endsWith("/a")).findFirst().orElseThrow();
    Page newA = changed.stream().filter(p -> p.sourceUrl().endsWith("/a")).findFirst().orElseThrow();
    List<Chunk> oldChunks = new Chunker().chunk(oldA);
    List<Chunk> newChunks = new Chunker().chunk(newA);
    long differing = newChunks.stream().filter(c -> c.chunkIndex() >= oldChunks.size()
        || !oldChunks.get(c.chunkIndex()).embedText().equals(c.embedText())
        || !oldChunks.get(c.chunkIndex()).payload().equals(c.payload())).count();
    assertThat(differing).isPositive().isLessThan(newChunks.size());
    assertThat(second.ok()).isTrue();
    assertThat(second.embedded()).isEqualTo((int) differing);
    assertThat(cohere.inputCount() - textsBefore).isEqualTo(1 + differing);
    assertThat(second.deleted()).isEqualTo(oldChunks.size() - newChunks.size()).isPositive();
    assertThat(second.pagesChanged()).isEqualTo(1);
    assertThat(second.pagesUnchanged()).isEqualTo(1);
    assertThat(hashes()).hasSize(newChunks.size() + 1);
    // the edited page's reused chunks got its new page hash, so the next run reads no page at all
    assertThat(hashes().values()).extracting(h -> h.split("/")[1]).doesNotContainNull().doesNotContain("null");
    if (qdrant != null) {
      assertThat(qdrant.callCount("SetPayload")).isEqualTo(1);
    }
    long textsAfter = cohere.inputCount();
    List<String> commitsBefore = commits();
    AtomicInteger reads = new AtomicInteger();
    Ingestor.Summary third = await(ingestor(counted()).ingest(new CountingPageSource(changed, reads), options()));
    assertThat(third.ok()).isTrue();
    assertThat(reads.get()).isZero();
    assertThat(third.reused()).isEqualTo(third.chunks()).isEqualTo(newChunks.size() + 1);
    assertThat(cohere.inputCount() - textsAfter).isEqualTo(1);
    if (qdrant != null) {
      assertThat(qdrant.callCount("SetPayload")).isEqualTo(1);
    } else {
      assertThat(commits()).isEqualTo(commitsBefore);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"qdrant", "embedded"})
  @DisplayName("points stored without page hashes (an older ingest) are marked once, embedding nothing; then no page is read")
  void olderPointsAreMarkedOnce(String kind) throws Exception {
    start(kind);
    List<Page> pages = SampleBook.pages().subList(0, 4);
    await(ingestor(counted()).ingest(pages, options()));
    // as an ingest before page hashes wrote them: the same points, the page keys absent
    Map<String, String> before = hashes();
    for (Page page : pages) {
      await(store.setPagePayload(COLLECTION, page.sourceUrl(), new io.vertx.core.json.JsonObject()
          .put(ChunkHash.PAGE_KEY, "older").put(ChunkHash.PAGE_CHUNKS_KEY, 0), Deadline.inMillis(10_000)));
    }
    AtomicInteger reads = new AtomicInteger();
    Ingestor.Summary second = await(ingestor(counted()).ingest(new CountingPageSource(pages, reads), options()));
    assertThat(second.ok()).isTrue();
    assertThat(reads.get()).isEqualTo(pages.size());
    assertThat(second.embedded()).isZero();
    assertThat(second.pagesUnchanged()).isEqualTo(pages.size());
    assertThat(hashes()).isEqualTo(before);
    reads.set(0);
    Ingestor.Summary third = await(ingestor(counted()).ingest(new CountingPageSource(pages, reads), options()));
    assertThat(reads.get()).isZero();
    assertThat(third.reused()).isEqualTo(third.chunks());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"qdrant", "embedded"})
  @DisplayName("a run stopped midway, then run again, embeds only what was not stored, and ends equal to a clean ingest")
  void stoppedRunIsCompletedByRerun(String kind) throws Exception {
    start(kind);
    List<Page> pages = SampleBook.pages();
    EmbeddingClient client = new EmbeddingClient(vertx);
    AtomicInteger calls = new AtomicInteger();
    // the process "dies" after 5 embed calls (the check and 4 batches): every later call fails the run
    Embedder dying = (texts, type, deadline) -> calls.incrementAndGet() > 5
        ? Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "killed"))
        : client.embed(texts, type, deadline);
    Ingestor.Options options = options().withPace(1, java.util.OptionalInt.empty());
    Throwable killed = awaitFailure(ingestor(dying).ingest(pages, options));
    assertThat(killed).hasMessageContaining("killed");
    int stored = hashes().size();
    assertThat(stored).isEqualTo(4 * 8);

    AtomicInteger reads = new AtomicInteger();
    Ingestor.Summary rerun = await(ingestor(counted()).ingest(new CountingPageSource(pages, reads), options));
    assertThat(rerun.ok()).isTrue();
    // pages fully stored before the stop are not read again; the one stopped midway and the rest are
    assertThat(reads.get()).isLessThan(pages.size());
    assertThat(rerun.reused()).isEqualTo(stored);
    assertThat(rerun.embedded()).isEqualTo(rerun.chunks() - stored);
    Map<String, String> resumed = hashes();

    await(ingestor(counted()).ingest(pages, Ingestor.Options.of("clean", false, KEYS)));
    assertThat(hashes("clean")).isEqualTo(resumed);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"qdrant", "embedded"})
  @DisplayName("a new embedding model re-embeds every chunk and says why")
  void modelChangeReembedsAll(String kind) throws Exception {
    start(kind);
    List<Page> pages = SampleBook.pages().subList(0, 3);
    await(ingestor(counted()).ingest(pages, options().withEmbedder("model-a", DIM)));
    Ingestor.Summary second = await(ingestor(counted()).ingest(pages, options().withEmbedder("model-b", DIM)));
    assertThat(second.embedded()).isEqualTo(second.chunks());
    assertThat(second.reused()).isZero();
    assertThat(second.notices()).anySatisfy(n -> assertThat(n)
        .contains(second.chunks() + " chunks re-embedded: the embedding model changed from model-a to model-b"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"qdrant"})
  @DisplayName("a 429 that outlasts the provider's retries pauses the run for Retry-After; nothing is lost")
  void rateLimitLosesNothing(String kind) throws Exception {
    start(kind);
    List<Page> pages = SampleBook.pages().subList(0, 4);
    // the check passes; then the provider's 2 attempts of the first batch both get 429, and once more
    Ingestor ingestor = ingestor((texts, type, deadline) -> {
      if (embedCalls.incrementAndGet() == 2) {
        cohere.failNext(3, 429, "1");
      }
      return new EmbeddingClient(vertx).embed(texts, type, deadline);
    });
    Ingestor.Summary summary = await(ingestor.ingest(pages, options().withPace(1, java.util.OptionalInt.empty())));
    assertThat(summary.ok()).isTrue();
    assertThat(summary.failed()).isZero();
    assertThat(hashes()).hasSize(summary.chunks());
    assertThat(summary.textsSent()).isGreaterThan(summary.chunks());
    assertThat(summary.notices()).anySatisfy(n -> assertThat(n).contains("rate-limited this run (429)"));
  }

  @Test
  @DisplayName("under a rate budget, with the provider's own retries off (as ingest runs then), every text the embedder received was booked")
  void budgetSeesEveryTextSent() throws Exception {
    start("qdrant", 1);
    List<Page> pages = SampleBook.pages().subList(0, 4);
    EmbeddingClient client = new EmbeddingClient(vertx);
    // call 1 is the run's one-text check; the first batch gets 429 twice, the second a 503: each
    // is sent again by the ingest
    Ingestor ingestor = ingestor((texts, type, deadline) -> {
      int call = embedCalls.incrementAndGet();
      if (call == 2) {
        cohere.failNext(2, 429, "1");
      } else if (call == 5) {
        cohere.failNext(1, 503, null);
      }
      return client.embed(texts, type, deadline);
    });
    Ingestor.Summary summary = await(ingestor.ingest(pages,
        options().withPace(1, java.util.OptionalInt.of(60_000))));
    assertThat(summary.ok()).isTrue();
    assertThat(hashes()).hasSize(summary.chunks());
    assertThat(cohere.inputCount()).isGreaterThan(summary.chunks());
    assertThat(summary.textsSent()).isEqualTo(cohere.inputCount() - 1);
  }

  /** Point id -> "content hash/page hash/page chunks", as the store holds them. */
  private Map<String, String> hashes() throws Exception {
    return hashes(COLLECTION);
  }

  private Map<String, String> hashes(String collection) throws Exception {
    List<String> urls = List.copyOf(await(store.facet(collection, "source_url", 10_000, Deadline.inMillis(10_000)))
        .stream().map(f -> String.valueOf(f.value())).toList());
    List<StoredChunk> chunks = await(store.storedChunks(collection, urls,
        List.of(ChunkHash.KEY, ChunkHash.PAGE_KEY, ChunkHash.PAGE_CHUNKS_KEY), Deadline.inMillis(10_000)));
    Map<String, String> out = new TreeMap<>();
    chunks.forEach(c -> out.put(c.id(), c.fields().getString(ChunkHash.KEY) + "/"
        + c.fields().getValue(ChunkHash.PAGE_KEY) + "/" + c.fields().getValue(ChunkHash.PAGE_CHUNKS_KEY)));
    return out;
  }

  /** The Lucene commit files of the embedded collection: a write makes a new one. */
  private List<String> commits() throws IOException {
    Path index = dataDir.resolve("collections").resolve(COLLECTION).resolve("index");
    if (!Files.isDirectory(index)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(index)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("segments"))
          .sorted().collect(Collectors.toCollection(ArrayList::new));
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  private static Throwable awaitFailure(Future<?> future) throws Exception {
    try {
      await(future);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected the run to fail");
  }
}
