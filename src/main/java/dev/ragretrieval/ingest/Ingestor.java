package dev.ragretrieval.ingest;

import dev.ragretrieval.embedding.EmbedResponse;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.KeywordAnalysis;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.StoredChunk;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Pages in, points out, incrementally. Each chunk is stored with a {@link ChunkHash content hash};
 * before embedding, the run reads back the hashes stored for its pages and embeds only the chunks
 * that are new or changed. Unchanged points are not written at all; points of chunks a page no
 * longer has are deleted; when mirroring a folder or sitemap, pages no longer in it are removed.
 *
 * <p>The stages overlap: pages are chunked and compared in groups (several at once) while earlier
 * chunks are being embedded; up to {@code embedConcurrency} embed calls run at once, and each lane's
 * write overlaps the other lanes' embedding. Queues between the stages are bounded, so a large site never
 * sits in memory as vectors. A point counts as done only once the store acknowledged it (writes
 * wait for it), so after a kill the next run embeds only what was not stored yet.
 *
 * <p>A batch that still fails after a few tries is counted and its pages keep their old chunks; a
 * rate limit (429) pauses every lane for its Retry-After and the batch is sent again, not lost.
 */
public final class Ingestor {

  /** Texts in flight at most (over all lanes): what a kill can lose, and the default batch size's bound. */
  static final int IN_FLIGHT_TEXTS = 192;
  /** Pages chunked and compared together: one read of stored hashes for all of them. */
  static final int PAGE_GROUP = 32;
  /**
   * Groups of pages chunked and compared at once: the store's round trips overlap. Two, not more:
   * each lane parses pages on a worker, and on a 2-core pod four parsers starved the first embed
   * calls and writes of CPU (docs/INGEST.md, run 6).
   */
  static final int PREPARE_LANES = 2;
  /** How long a batch keeps being sent again while the embedder answers 429. */
  static final Duration RATE_LIMIT_PATIENCE = Duration.ofMinutes(15);

  /** The payload keys read back per stored chunk. */
  private static final List<String> STORED_KEYS = List.of("source_url", ChunkHash.KEY, ChunkHash.MODEL_KEY,
      ChunkHash.CHUNKER_KEY, ChunkHash.PAGE_KEY, ChunkHash.PAGE_CHUNKS_KEY);

  /**
   * How one run behaves; {@code indexedKeys} become payload indexes of a new collection. With a
   * {@code source} (the folder or sitemap), every point records it as {@value VectorStore#INGEST_SOURCE};
   * with {@code mirror} too, the run then removes the documents of that source it did not see.
   * {@code batchSize} 0 picks one from the concurrency ({@link #IN_FLIGHT_TEXTS} / lanes, 16..96).
   * {@code embeddingModel} and {@code vectorSize}, when known (the start-up check gave them), spare
   * the run its own one-text check; null and 0 otherwise.
   */
  public record Options(String collection, boolean recreate, int batchSize, List<String> indexedKeys,
      Duration embedTimeout, int maxAttempts, String source, boolean mirror, Set<String> alsoPresent,
      int embedConcurrency, OptionalInt embedRatePerMinute, String embeddingModel, int vectorSize) {

    public Options {
      if (batchSize < 0 || batchSize > 96) {
        throw new IllegalArgumentException("batch size must be 1..96 (0 = automatic)");
      }
      if (embedConcurrency < 1 || embedConcurrency > 64) {
        throw new IllegalArgumentException("embed concurrency must be 1..64");
      }
      indexedKeys = List.copyOf(indexedKeys);
      alsoPresent = Set.copyOf(alsoPresent);
      if (mirror && source == null) {
        throw new IllegalArgumentException("mirroring needs a source");
      }
    }

    public static Options of(String collection, boolean recreate, List<String> indexedKeys) {
      return new Options(collection, recreate, 0, indexedKeys, Duration.ofMinutes(2), 3, null, false, Set.of(),
          4, OptionalInt.empty(), null, 0);
    }

    public Options withBatchSize(int size) {
      return new Options(collection, recreate, size, indexedKeys, embedTimeout, maxAttempts, source, mirror,
          alsoPresent, embedConcurrency, embedRatePerMinute, embeddingModel, vectorSize);
    }

    /** Up to {@code concurrency} embed calls at once, within {@code ratePerMinute} texts a minute when set. */
    public Options withPace(int concurrency, OptionalInt ratePerMinute) {
      return new Options(collection, recreate, batchSize, indexedKeys, embedTimeout, maxAttempts, source, mirror,
          alsoPresent, concurrency, ratePerMinute, embeddingModel, vectorSize);
    }

    /** The embedder's model and vector size, as the start-up check found them. */
    public Options withEmbedder(String model, int size) {
      return new Options(collection, recreate, batchSize, indexedKeys, embedTimeout, maxAttempts, source, mirror,
          alsoPresent, embedConcurrency, embedRatePerMinute, model, size);
    }

    /**
     * Points remember {@code source}; with {@code mirror}, documents of it that are neither in this
     * run nor in {@code alsoPresent} (pages that could not be fetched this time) are removed.
     */
    public Options fromSource(String source, boolean mirror, Set<String> alsoPresent) {
      return new Options(collection, recreate, batchSize, indexedKeys, embedTimeout, maxAttempts, source, mirror,
          alsoPresent, embedConcurrency, embedRatePerMinute, embeddingModel, vectorSize);
    }

    /** The batch size used: as set, else the in-flight bound shared by the lanes, within 16..96 (and the budget). */
    int effectiveBatchSize() {
      int size = batchSize > 0 ? batchSize : Math.max(16, Math.min(96, IN_FLIGHT_TEXTS / embedConcurrency));
      return embedRatePerMinute.isPresent() ? Math.min(size, embedRatePerMinute.getAsInt()) : size;
    }
  }

  /**
   * The outcome of a run. Pages: {@code pagesNew} had nothing stored, {@code pagesChanged} had
   * chunks embedded or deleted, {@code pagesUnchanged} had neither; {@code removedDocuments} were
   * no longer in the mirrored source ({@code removedChunks} points). Chunks: {@code embedded}
   * were embedded and stored, {@code reused} were already stored as they are, {@code deleted} were
   * stale chunks of changed pages, {@code failed} could not be stored. {@code textsSent}: texts sent
   * to the embedder for chunks (retries included; the one-text start-up check is not).
   * {@code failedPages} names every page not fully stored; {@code notices} say why the run did
   * what it did (a model change re-embeds everything).
   */
  public record Summary(String collection, int pages, int pagesNew, int pagesChanged, int pagesUnchanged,
      int chunks, int embedded, int reused, long deleted, int failed, long textsSent, int removedDocuments,
      long removedChunks, List<String> failedPages, List<String> errors, List<String> notices, double seconds) {

    public Summary {
      failedPages = List.copyOf(failedPages);
      errors = List.copyOf(errors);
      notices = List.copyOf(notices);
    }

    public boolean ok() {
      return failed == 0 && errors.isEmpty() && failedPages.isEmpty();
    }

    /** Chunks written this run (embedded and stored). */
    public int upserted() {
      return embedded;
    }

    /**
     * "docs: 3 pages (1 new, 1 changed, 1 unchanged, 0 removed), 9 chunks (4 embedded, 5 reused,
     * 1 stale deleted, 0 failed), 4 texts embedded in 1.2s".
     */
    public String describe() {
      return String.format(Locale.ROOT,
          "%s: %s (%d new, %d changed, %d unchanged, %d removed), %s (%d embedded, %d reused, %d stale deleted,"
              + " %d failed), %s embedded in %.1fs",
          collection, plural(pages, "page"), pagesNew, pagesChanged, pagesUnchanged, removedDocuments,
          plural(chunks, "chunk"), embedded, reused, deleted, failed, plural(textsSent, "text"), seconds)
          + (removedDocuments == 0 ? "" : "; " + plural(removedDocuments, "document") + " removed ("
              + plural(removedChunks, "chunk") + ")");
    }

    /** The same as JSON, for {@code --output}. */
    public JsonObject toJson() {
      return new JsonObject()
          .put("collection", collection)
          .put("ok", ok())
          .put("pages", new JsonObject().put("total", pages).put("new", pagesNew).put("changed", pagesChanged)
              .put("unchanged", pagesUnchanged).put("deleted", removedDocuments).put("failed", failedPages.size()))
          .put("chunks", new JsonObject().put("total", chunks).put("embedded", embedded).put("reused", reused)
              .put("stale_deleted", deleted).put("failed", failed).put("removed_with_pages", removedChunks))
          .put("texts_sent", textsSent)
          .put("seconds", Math.round(seconds * 1000) / 1000.0)
          .put("failed_pages", new JsonArray(new ArrayList<>(failedPages)))
          .put("errors", new JsonArray(new ArrayList<>(errors)))
          .put("notices", new JsonArray(new ArrayList<>(notices)));
    }
  }

  /** "1 page", "2 pages". */
  public static String plural(long count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }

  /** The first five of {@code items}, comma-separated, and "..." when there are more: what a notice names. */
  public static String firstFive(List<String> items) {
    return String.join(", ", items.subList(0, Math.min(5, items.size()))) + (items.size() > 5 ? ", ..." : "");
  }

  private final Vertx vertx;
  private final VectorStore store;
  private final Embedder embedder;
  private final Chunker chunker;
  private final Progress progress;

  public Ingestor(Vertx vertx, VectorStore store, Embedder embedder, Progress progress) {
    this(vertx, store, embedder, new Chunker(), progress);
  }

  public Ingestor(Vertx vertx, VectorStore store, Embedder embedder, Chunker chunker, Progress progress) {
    this.vertx = vertx;
    this.store = store;
    this.embedder = embedder;
    this.chunker = chunker;
    this.progress = progress;
  }

  public Future<Summary> ingest(List<Page> pages, Options options) {
    return ingest(PageSource.of(pages), options);
  }

  /**
   * Takes pages from {@code source} as they come (a crawl still fetching the rest). Runs on a
   * context of its own: every step of the run happens on that one event loop, in order.
   */
  public Future<Summary> ingest(PageSource source, Options options) {
    Context context = vertx.getOrCreateContext();
    Promise<Summary> done = Promise.promise();
    context.runOnContext(v -> new Run(context, source, options).run().onComplete(done));
    return done.future();
  }

  /** How many points {@code collection} holds; a missing collection holds none. */
  static Future<Long> pointsCount(VectorStore store, String collection) {
    return store.collectionInfo(collection, Deadline.inMillis(60_000))
        .map(info -> info.pointsCount())
        .recover(err -> ServiceException.from(err).code() == ErrorCode.COLLECTION_NOT_FOUND
            ? Future.succeededFuture(0L) : Future.failedFuture(err));
  }

  /** One page on its way: what it had stored, what is still to be written, whether anything failed. */
  private static final class PageState {
    final Page page;
    /** The page's hash and chunk count, as its points carry them ({@link ChunkHash#PAGE_KEY}). */
    final JsonObject marker;
    final List<String> ids = new ArrayList<>();
    final Set<String> vanished = new HashSet<>();
    boolean hadStored;
    /** Some reused point carries an older page marker: the page's points get the new one once stored. */
    boolean remark;
    int pending;
    int embedded;
    boolean failed;

    PageState(Page page, JsonObject marker) {
      this.page = page;
      this.marker = marker;
    }
  }

  /** A chunk to embed, with the payload (hash included) its point will carry. */
  private record Pending(PageState page, String id, String embedText, JsonObject payload) {}

  /** The state of one run; touched only on the run's context. */
  private final class Run {
    private final Context context;
    private final PageSource source;
    /** The source URL of every page taken from the source so far (read, skipped as unchanged, or failed). */
    private final Set<String> pages = new LinkedHashSet<>();
    private final Options options;
    private final int batchSize;
    private final RateBudget budget;
    private final Deque<Pending> queue = new ArrayDeque<>();
    private final int queueLimit;
    private final List<Future<Void>> finishing = new ArrayList<>();
    private final Set<String> failedPages = new LinkedHashSet<>();
    /** Pages read this run that had no text to chunk: named in a notice, so a short count is explained. */
    private final List<String> textless = new ArrayList<>();
    /** Keyword tokens and chunks read so far: BM25's avg_len for a collection this run creates from a site being fetched. */
    private long keywordTokens;
    private long keywordChunks;
    /** The average was taken for the collection being created: later pages need no measuring. */
    private boolean keywordAverageTaken;
    /** A collection waiting to be created until enough chunks were measured ({@link #enoughMeasured}). */
    private Promise<Void> measuring;
    private final Set<String> errors = new LinkedHashSet<>();
    private final Set<String> notices = new LinkedHashSet<>();
    private final Map<String, Integer> reasons = new LinkedHashMap<>();
    private Promise<Void> dataArrived;
    private Promise<Void> spaceFreed;
    private boolean prepared;
    private int preparersDone;
    private boolean collectionMissing;
    private Future<Void> collectionReady;
    /** With --recreate, the old collection's deletion: pages are read meanwhile, nothing is written before it. */
    private Future<Void> dropped = Future.succeededFuture();
    private ServiceException fatal;
    /** Lanes send nothing before this (a rate limit's Retry-After); nanoTime, compared by difference. */
    private long pausedUntilNanos;
    private String model;
    private int vectorSize;
    private int total;
    private int reused;
    private int embedded;
    private int failed;
    private long deleted;
    private long textsSent;
    private int pagesNew;
    private int pagesChanged;
    private int pagesUnchanged;
    private final long started = System.nanoTime();

    Run(Context context, PageSource source, Options options) {
      this.context = context;
      this.source = source;
      this.options = options;
      this.batchSize = options.effectiveBatchSize();
      this.budget = options.embedRatePerMinute().isPresent()
          ? new RateBudget(options.embedRatePerMinute().getAsInt(), System::nanoTime) : null;
      // enough compared chunks waiting to keep every lane busy for a few calls, no more
      this.queueLimit = Math.max(4 * batchSize * options.embedConcurrency(), 256);
      this.pausedUntilNanos = started;
    }

    Future<Summary> run() {
      if (options.recreate()) {
        dropped = here(store.deleteCollection(options.collection()));
      }
      collectionMissing = options.recreate();
      return embedderCheck()
          .compose(v -> {
            List<Future<Void>> stages = new ArrayList<>();
            // a collection that could not be dropped stops the run (nothing was written yet)
            stages.add(dropped.recover(err -> {
              fatal = ServiceException.from(err);
              wake();
              return Future.succeededFuture();
            }));
            // reading stored hashes failed even after retries: the store is not usable, the run stops
            for (int lane = 0; lane < PREPARE_LANES; lane++) {
              stages.add(prepare().recover(err -> {
                fatal = ServiceException.from(err);
                prepared = true;
                wake();
                return Future.succeededFuture();
              }));
            }
            for (int lane = 0; lane < options.embedConcurrency(); lane++) {
              stages.add(lane(Future.succeededFuture()));
            }
            return Future.join(stages);
          })
          .transform(stages -> {
            // every page still finishing was started by a stage above; none starts after they end
            return Future.join(new ArrayList<>(finishing)).transform(pagesDone -> {
              if (fatal != null) {
                return Future.failedFuture(fatal);
              }
              if (stages.failed()) {
                return Future.failedFuture(stages.cause());
              }
              return deleteMissing();
            });
          })
          .map(this::summary)
          .onComplete(done -> progress.finish());
    }

    private Summary summary(List<FacetCount> removed) {
      double seconds = (System.nanoTime() - started) / 1e9;
      reasons.forEach((reason, count) -> notices.add(plural(count, "chunk") + " re-embedded: " + reason));
      if (!textless.isEmpty()) {
        int n = textless.size();
        notices.add(plural(n, "page") + " had no text of " + (n == 1 ? "its" : "their")
            + " own (a redirect, or only navigation) and made no chunk: "
            + firstFive(textless));
      }
      return new Summary(options.collection(), pages.size(), pagesNew, pagesChanged, pagesUnchanged, total,
          embedded, reused, deleted, failed, textsSent, removed.size(),
          removed.stream().mapToLong(FacetCount::count).sum(), List.copyOf(failedPages), List.copyOf(errors),
          List.copyOf(notices), seconds);
    }

    /** The model id goes into every hash: known from the start-up check, or asked here with one text. */
    private Future<Void> embedderCheck() {
      if (options.embeddingModel() != null && options.vectorSize() > 0) {
        model = options.embeddingModel();
        vectorSize = options.vectorSize();
        return Future.succeededFuture();
      }
      return here(embedder.embed(List.of("ingest check"), InputType.SEARCH_DOCUMENT, Deadline.in(options.embedTimeout())))
          .map(response -> {
            model = response.model() == null ? "" : response.model();
            vectorSize = response.dimension() > 0 ? response.dimension()
                : response.vectors().isEmpty() ? 0 : response.vectors().get(0).length;
            return null;
          });
    }

    // ---- stage 1: chunk pages, compare with what is stored, queue what must be embedded ----

    private Future<Void> prepare() {
      if (fatal != null) {
        prepareDone();
        return Future.succeededFuture();
      }
      if (queue.size() >= queueLimit) {
        if (spaceFreed == null) {
          spaceFreed = Promise.promise();
        }
        return spaceFreed.future().compose(v -> prepare());
      }
      return here(source.next(PAGE_GROUP)).compose(group -> {
        if (group.isEmpty()) {
          prepareDone();
          return Future.<Void>succeededFuture();
        }
        return prepare(group).compose(v -> prepare());
      });
    }

    /** One preparing lane has no more pages; when it was the last, the queue gets no more chunks. */
    private void prepareDone() {
      if (++preparersDone >= PREPARE_LANES) {
        prepared = true;
      }
      wake();
    }

    /** A page read and chunked: {@code page} null when it has no text or cannot be read ({@code unreadable} says why). */
    private record Chunked(Page page, List<Chunk> chunks, String unreadable, long keywordTokens) {}

    /**
     * Reads what is stored for the group's pages first: a page whose points all carry its current
     * page hash, as many as it had chunks, is reused as it is, without being read or chunked. The
     * others are read, chunked and compared chunk by chunk, one page after another (each on a
     * worker), so their chunks reach the embed lanes page by page, not once the whole group is read.
     */
    private Future<Void> prepare(List<SourcePage> group) {
      return stored(group.stream().map(SourcePage::sourceUrl).toList()).compose(stored -> {
        List<SourcePage> changed = new ArrayList<>();
        for (SourcePage page : group) {
          Map<String, JsonObject> before = stored.get(page.sourceUrl());
          if (unchanged(before, pageHash(page))) {
            pages.add(page.sourceUrl());
            total += before.size();
            reused += before.size();
            pagesUnchanged++;
          } else {
            changed.add(page);
          }
        }
        report();
        return prepareEach(changed, 0, stored);
      });
    }

    private Future<Void> prepareEach(List<SourcePage> changed, int index, Map<String, Map<String, JsonObject>> stored) {
      if (index >= changed.size() || fatal != null) {
        return Future.succeededFuture();
      }
      // read no further ahead than the queue holds: parsing the whole site at once takes the CPU
      // that the first embed calls and writes need
      if (queue.size() >= queueLimit) {
        if (spaceFreed == null) {
          spaceFreed = Promise.promise();
        }
        return spaceFreed.future().compose(v -> prepareEach(changed, index, stored));
      }
      SourcePage next = changed.get(index);
      // the keyword lengths matter only until the collection is being created (a new one keeps their
      // average), and not at all when the source holds every page (it is measured on all of them)
      boolean measure = !keywordAverageTaken && source.allPages() == null;
      return here(vertx.executeBlocking(() -> read(next, measure), false)).compose(chunked -> {
        if (measure) {
          keywordTokens += chunked.keywordTokens();
          keywordChunks += chunked.chunks() == null ? 0 : chunked.chunks().size();
        }
        if (chunked.unreadable() != null) {
          errors.add(ErrorCode.INVALID_REQUEST + ": " + chunked.unreadable());
        }
        Page page = chunked.page();
        if (page == null) {
          // unreadable: counted as failed and kept (a mirroring run does not remove it)
          if (chunked.chunks() != null) {
            pages.add(next.sourceUrl());
            failedPages.add(next.sourceUrl());
          } else {
            textless.add(next.sourceUrl()); // no text of its own: nothing to store, nothing failed
          }
        } else {
          pages.add(page.sourceUrl());
          List<Chunk> chunks = chunked.chunks();
          JsonObject marker = new JsonObject().put(ChunkHash.PAGE_KEY, pageHash(next))
              .put(ChunkHash.PAGE_CHUNKS_KEY, chunks.size());
          plan(page, marker, chunks, stored.get(page.sourceUrl()));
          wake();
          report();
        }
        return prepareEach(changed, index + 1, stored);
      });
    }

    /**
     * On a worker: reads and chunks one page. A page without text gives null for both; one that
     * cannot be read gives a null page, an empty chunk list and its reason.
     */
    private Chunked read(SourcePage source, boolean measure) {
      Page page;
      try {
        page = source.reader().call();
      } catch (Exception e) {
        return new Chunked(null, List.of(), "cannot read " + source.sourceUrl() + " (" + e.getMessage() + ")", 0);
      }
      if (page.sections().isEmpty()) {
        return new Chunked(null, null, null, 0);
      }
      List<Chunk> chunks = chunker.chunk(page);
      long tokens = !measure ? 0 : chunks.stream()
          .mapToLong(chunk -> KeywordAnalysis.tokens(KeywordText.of(chunk.payload())).size()).sum();
      return new Chunked(page, chunks, null, tokens);
    }

    /** What a page's points carry when they were written from this very page by this run's model, chunker and source. */
    private String pageHash(SourcePage page) {
      return ChunkHash.sha256(page.fingerprint() + "\n" + (options.source() == null ? "" : options.source())
          + "\n" + model + "\n" + chunker.version());
    }

    /**
     * Whether the stored points are exactly what reading the page again would leave: every one
     * carries the page hash (so the same bytes, model, chunker and source) and its content hash,
     * and there are as many as the page had chunks (a run killed midway left fewer).
     */
    private boolean unchanged(Map<String, JsonObject> stored, String pageHash) {
      if (stored == null || stored.isEmpty()) {
        return false;
      }
      for (JsonObject point : stored.values()) {
        Object count = point.getValue(ChunkHash.PAGE_CHUNKS_KEY);
        if (!pageHash.equals(point.getString(ChunkHash.PAGE_KEY)) || !(count instanceof Number n)
            || n.longValue() != stored.size() || point.getString(ChunkHash.KEY) == null
            || !model.equals(point.getString(ChunkHash.MODEL_KEY))
            || !chunker.version().equals(point.getString(ChunkHash.CHUNKER_KEY))) {
          return false;
        }
      }
      return true;
    }

    /** The chunks stored for the group's pages, by source_url, then id; empty in a new collection. */
    private Future<Map<String, Map<String, JsonObject>>> stored(List<String> urls) {
      if (collectionMissing) {
        return Future.succeededFuture(Map.of());
      }
      return attempt(() -> here(store.storedChunks(options.collection(), urls, STORED_KEYS,
              Deadline.in(options.embedTimeout()))), 1)
          .map(chunks -> {
            Map<String, Map<String, JsonObject>> byPage = new HashMap<>();
            for (StoredChunk chunk : chunks) {
              String url = chunk.fields().getString("source_url");
              byPage.computeIfAbsent(url, u -> new HashMap<>()).put(chunk.id(), chunk.fields());
            }
            return byPage;
          })
          .recover(err -> {
            ServiceException error = ServiceException.from(err);
            if (error.code() == ErrorCode.COLLECTION_NOT_FOUND) {
              collectionMissing = true;
              return Future.succeededFuture(Map.of());
            }
            return Future.failedFuture(error);
          });
    }

    /** Decides per chunk: reuse the stored point, or embed it again; notes which stored points vanish. */
    private void plan(Page page, JsonObject marker, List<Chunk> chunks, Map<String, JsonObject> stored) {
      PageState state = new PageState(page, marker);
      Map<String, JsonObject> before = stored == null ? Map.of() : stored;
      state.hadStored = !before.isEmpty();
      state.vanished.addAll(before.keySet());
      for (Chunk chunk : chunks) {
        JsonObject payload = chunk.payload().copy();
        if (options.source() != null) {
          payload.put(VectorStore.INGEST_SOURCE, options.source());
        }
        payload.put(ChunkHash.MODEL_KEY, model).put(ChunkHash.CHUNKER_KEY, chunker.version()).mergeIn(marker);
        String hash = ChunkHash.of(chunk.embedText(), payload);
        payload.put(ChunkHash.KEY, hash);
        total++;
        state.ids.add(chunk.pointId());
        state.vanished.remove(chunk.pointId());
        JsonObject old = before.get(chunk.pointId());
        if (old != null && hash.equals(old.getString(ChunkHash.KEY))) {
          reused++;
          state.remark |= !marker.getValue(ChunkHash.PAGE_KEY).equals(old.getValue(ChunkHash.PAGE_KEY))
              || !(old.getValue(ChunkHash.PAGE_CHUNKS_KEY) instanceof Number n) || n.intValue() != chunks.size();
          continue;
        }
        if (old != null) {
          noteReason(old);
        }
        state.pending++;
        queue.addLast(new Pending(state, chunk.pointId(), chunk.embedText(), payload));
      }
      if (state.pending == 0) {
        finishing.add(finish(state));
      }
    }

    /** Why a stored chunk is embedded again; a model or chunker change is said at once, being the costly one. */
    private void noteReason(JsonObject old) {
      String storedModel = old.getString(ChunkHash.MODEL_KEY);
      String storedChunker = old.getString(ChunkHash.CHUNKER_KEY);
      String reason;
      if (old.getString(ChunkHash.KEY) == null) {
        reason = "stored without a content hash (an older ingest)";
      } else if (storedModel != null && !storedModel.equals(model)) {
        reason = "the embedding model changed from " + storedModel + " to " + model;
      } else if (storedChunker != null && !storedChunker.equals(chunker.version())) {
        reason = "the chunker changed from version " + storedChunker + " to " + chunker.version();
      } else {
        reason = "their text or metadata changed";
      }
      if (reasons.merge(reason, 1, Integer::sum) == 1 && !reason.startsWith("their")) {
        progress.notice("re-embedding every chunk whose hash no longer matches: " + reason);
      }
    }

    // ---- stage 2 and 3: embed lanes, each writing its last batch while it embeds the next ----

    /** Takes batches off the queue until it is empty for good; {@code writing} is this lane's last write. */
    private Future<Void> lane(Future<Void> writing) {
      if (fatal != null) {
        return writing;
      }
      // a call costs about the same for 5 texts as for 48: wait for a full batch while pages still come
      if (queue.isEmpty() || (!prepared && queue.size() < batchSize)) {
        if (prepared) {
          return writing;
        }
        if (dataArrived == null) {
          dataArrived = Promise.promise();
        }
        return dataArrived.future().compose(v -> lane(writing));
      }
      List<Pending> batch = new ArrayList<>(batchSize);
      while (batch.size() < batchSize && !queue.isEmpty()) {
        batch.add(queue.pollFirst());
      }
      if (queue.size() < queueLimit && spaceFreed != null) {
        Promise<Void> space = spaceFreed;
        spaceFreed = null;
        space.complete();
      }
      if (collectionReady == null) {
        // the collection is checked (and created) while the first batch is being embedded, not after
        // it; write() waits for it, and asks again if this failed
        ensureCollection();
      }
      List<String> texts = batch.stream().map(Pending::embedText).toList();
      return embed(texts, 1, System.nanoTime()).transform(embedding -> {
        if (embedding.failed()) {
          ServiceException error = ServiceException.from(embedding.cause());
          if (isFatal(error)) {
            fatal = error;
            wake();
            return writing;
          }
          failBatch(batch, error);
          return lane(writing);
        }
        // the lane writes before it embeds again (the other lanes embed meanwhile): a kill loses at most
        // one batch per lane, embedded or not yet written
        return writing.compose(v -> write(batch, embedding.result())).compose(v -> lane(Future.succeededFuture()));
      });
    }

    /** One embed call, again after a pause while rate-limited, a few times on other failures. */
    private Future<EmbedResponse> embed(List<String> texts, int attempt, long firstNanos) {
      return permit(texts.size())
          .compose(v -> {
            textsSent += texts.size();
            return here(embedder.embed(texts, InputType.SEARCH_DOCUMENT, Deadline.in(options.embedTimeout())));
          })
          .compose(response -> response.vectors().size() == texts.size() ? Future.succeededFuture(response)
              : Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR, "the embedder returned "
                  + response.vectors().size() + " vectors for " + texts.size() + " texts")))
          .recover(err -> {
            ServiceException error = ServiceException.from(err);
            if (isFatal(error)) {
              return Future.failedFuture(error);
            }
            if (error.code() == ErrorCode.RATE_LIMIT
                && System.nanoTime() - firstNanos < RATE_LIMIT_PATIENCE.toNanos()) {
              long waitSeconds = error.retryAfterSeconds() == null ? 1 : Math.max(1, error.retryAfterSeconds());
              long until = System.nanoTime() + waitSeconds * 1_000_000_000L;
              notices.add("the embedder rate-limited this run (429); every lane waited as its Retry-After asked"
                  + " and the batches were sent again");
              if (until - pausedUntilNanos > 0) {
                pausedUntilNanos = until;
                progress.notice("the embedder is rate-limiting: every lane waits " + waitSeconds + "s (Retry-After)");
              }
              return embed(texts, attempt, firstNanos);
            }
            if (attempt >= options.maxAttempts()) {
              return Future.failedFuture(error);
            }
            return delay(500L << (attempt - 1)).compose(v -> embed(texts, attempt + 1, firstNanos));
          });
    }

    /** Waits out a rate-limit pause, then books the call in the texts-per-minute budget and waits its turn. */
    private Future<Void> permit(int texts) {
      long paused = pausedUntilNanos - System.nanoTime();
      if (paused > 0) {
        return delay((paused + 999_999) / 1_000_000).compose(v -> permit(texts));
      }
      long wait = budget == null ? 0 : budget.reserve(texts);
      return wait > 0 ? delay(wait) : Future.succeededFuture();
    }

    /** Stores one embedded batch (acknowledged before it counts); pages whose last chunk this was finish. */
    private Future<Void> write(List<Pending> batch, EmbedResponse response) {
      List<Point> points = new ArrayList<>(batch.size());
      for (int i = 0; i < batch.size(); i++) {
        Pending p = batch.get(i);
        points.add(new Point(p.id(), response.vectors().get(i), p.payload()));
      }
      return attempt(() -> ensureCollection()
              .compose(v -> here(store.upsert(options.collection(), points, Deadline.in(options.embedTimeout())))), 1)
          .transform(stored -> {
            if (stored.failed()) {
              ServiceException error = ServiceException.from(stored.cause());
              if (isFatal(error)) {
                fatal = error;
                wake();
                return Future.succeededFuture();
              }
              failBatch(batch, error);
              return Future.succeededFuture();
            }
            for (Pending p : batch) {
              embedded++;
              p.page().embedded++;
              if (--p.page().pending == 0) {
                finishing.add(finish(p.page()));
              }
            }
            report();
            return Future.succeededFuture();
          });
    }

    private void failBatch(List<Pending> batch, ServiceException error) {
      errors.add(error.code() + ": " + error.getMessage());
      for (Pending p : batch) {
        failed++;
        p.page().failed = true;
        if (--p.page().pending == 0) {
          finishing.add(finish(p.page()));
        }
      }
      report();
    }

    /** A page all of whose chunks are stored loses the points of chunks it no longer has; then it is counted. */
    private Future<Void> finish(PageState page) {
      if (page.failed) {
        failedPages.add(page.page.sourceUrl());
        return Future.succeededFuture();
      }
      Future<Void> stale = page.vanished.isEmpty() || collectionMissing ? Future.succeededFuture()
          : attempt(() -> here(store.deleteStale(options.collection(), page.page.sourceUrl(), page.ids,
              Deadline.in(options.embedTimeout()))), 1);
      return stale.compose(v -> mark(page)).transform(done -> {
        if (done.failed()) {
          ServiceException error = ServiceException.from(done.cause());
          errors.add(error.code() + ": " + error.getMessage());
          failedPages.add(page.page.sourceUrl());
          return Future.succeededFuture();
        }
        deleted += page.vanished.isEmpty() || collectionMissing ? 0 : page.vanished.size();
        if (!page.hadStored) {
          pagesNew++;
        } else if (page.embedded > 0 || !page.vanished.isEmpty()) {
          pagesChanged++;
        } else {
          pagesUnchanged++;
        }
        return Future.succeededFuture();
      });
    }

    /**
     * Gives every point of a page the page's current marker when some reused point had an older one
     * (the page changed elsewhere, or was stored before page hashes existed), so the next run can
     * skip reading it. Without it, the next run reads the page again and stores nothing new.
     */
    private Future<Void> mark(PageState page) {
      if (!page.remark || collectionMissing) {
        return Future.succeededFuture();
      }
      return attempt(() -> here(store.setPagePayload(options.collection(), page.page.sourceUrl(), page.marker,
              Deadline.in(options.embedTimeout()))), 1)
          .recover(err -> {
            notices.add("pages not marked as read (they are read again next run): "
                + ServiceException.from(err).getMessage());
            return Future.succeededFuture();
          });
    }

    /**
     * BM25's average length in tokens for a collection this run creates: over every chunk when the
     * source holds all its pages (a folder), else over the first half queue of chunks read (all of a
     * smaller site). Qdrant computes each point's BM25 vector with it at upsert time, so the first
     * batch must not set it (the MkDocs manual's first pages gave 29 tokens against its 70).
     */
    private Future<Double> keywordAverage() {
      List<Page> all = source.allPages();
      if (all == null) {
        return enoughMeasured().map(v -> {
          keywordAverageTaken = true;
          return keywordChunks == 0 ? 0 : (double) keywordTokens / keywordChunks;
        });
      }
      return here(vertx.executeBlocking(() -> KeywordAnalysis.averageLength(
          all.stream().flatMap(page -> chunker.chunk(page).stream()).map(Chunk::payload).toList()), false));
    }

    /**
     * Done once half the queue's worth of chunks were read and measured, or every page was (or the
     * run failed). Writes wait for the collection meanwhile, but reading goes on until the queue is
     * full, so half of it is always reached: the wait cannot block the reading it waits for.
     */
    private Future<Void> enoughMeasured() {
      if (measuredEnough()) {
        return Future.succeededFuture();
      }
      if (measuring == null) {
        measuring = Promise.promise();
      }
      return measuring.future();
    }

    private boolean measuredEnough() {
      return keywordChunks >= queueLimit / 2 || prepared || fatal != null;
    }

    /** Creates a missing collection with the embedder's vector size (once); refuses a mismatched one. */
    private Future<Void> ensureCollection() {
      if (collectionReady == null || collectionReady.failed()) {
        collectionReady = dropped.compose(v -> here(store.collectionInfo(options.collection(),
                Deadline.in(options.embedTimeout()))))
            .transform(info -> {
              if (info.succeeded()) {
                if (info.result().vectorSize() != vectorSize) {
                  return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "collection '"
                      + options.collection() + "' holds vectors of size " + info.result().vectorSize()
                      + " but the embedding model gives " + vectorSize + " (use --recreate or another collection)"));
                }
                return Future.succeededFuture();
              }
              if (ServiceException.from(info.cause()).code() == ErrorCode.COLLECTION_NOT_FOUND) {
                return keywordAverage().compose(avgLen -> here(store.createCollection(options.collection(), vectorSize,
                    indexedKeys(), avgLen, Deadline.in(VectorStore.ADMIN_TIMEOUT))));
              }
              return Future.failedFuture(info.cause());
            });
      }
      return collectionReady;
    }

    /** The configured keys and the two a mirroring run filters on. */
    private List<String> indexedKeys() {
      Set<String> keys = new LinkedHashSet<>(options.indexedKeys());
      keys.add("source_url");
      keys.add(VectorStore.INGEST_SOURCE);
      return List.copyOf(keys);
    }

    /** Retries any failure but a caller error, waiting 0.5 s, 1 s, 2 s, ... between tries. */
    private <T> Future<T> attempt(Supplier<Future<T>> work, int number) {
      return work.get().recover(err -> {
        ServiceException error = ServiceException.from(err);
        if (number >= options.maxAttempts() || isFatal(error) || error.code() == ErrorCode.COLLECTION_NOT_FOUND) {
          return Future.failedFuture(error);
        }
        return delay(500L << (number - 1)).compose(v -> attempt(work, number + 1));
      });
    }

    /** Errors no retry and no other batch can fix: the whole run stops. */
    private boolean isFatal(ServiceException error) {
      return error.code() == ErrorCode.INVALID_REQUEST || error.code() == ErrorCode.UNAUTHORIZED;
    }

    /** Documents of the mirrored source that this run did not see go, with all their chunks. */
    private Future<List<FacetCount>> deleteMissing() {
      if (!options.mirror() || pages.isEmpty()) {
        // a run that saw no page at all (a site that was down) never empties its source
        return Future.succeededFuture(List.of());
      }
      Set<String> present = new HashSet<>(options.alsoPresent());
      present.addAll(source.alsoPresent());
      present.addAll(pages);
      return here(store.deleteMissing(options.collection(), options.source(), present))
          .recover(err -> ServiceException.from(err).code() == ErrorCode.COLLECTION_NOT_FOUND
              ? Future.succeededFuture(List.of()) : Future.failedFuture(err));
    }

    private void report() {
      progress.update(new Progress.Counts(reused + embedded + failed, total, reused, embedded, textsSent));
    }

    /** Lanes waiting for chunks go and look again (chunks arrived, preparing ended, or the run stops). */
    private void wake() {
      if (measuring != null && measuredEnough()) {
        Promise<Void> measured = measuring;
        measuring = null;
        measured.complete();
      }
      if (dataArrived != null) {
        Promise<Void> arrived = dataArrived;
        dataArrived = null;
        arrived.complete();
      }
      if (fatal != null && spaceFreed != null) {
        Promise<Void> space = spaceFreed;
        spaceFreed = null;
        space.complete();
      }
    }

    private Future<Void> delay(long millis) {
      Promise<Void> later = Promise.promise();
      context.runOnContext(v -> vertx.setTimer(Math.max(1, millis), id -> later.complete()));
      return later.future();
    }

    /** {@code future}, completed back on the run's context whatever thread completes it. */
    private <T> Future<T> here(Future<T> future) {
      Promise<T> back = Promise.promise();
      future.onComplete(done -> context.runOnContext(v -> back.handle(done)));
      return back.future();
    }
  }
}
