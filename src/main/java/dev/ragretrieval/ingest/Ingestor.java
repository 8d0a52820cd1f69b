package dev.ragretrieval.ingest;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.embedding.EmbedResponse;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.KeywordAnalysis;
import dev.ragretrieval.search.VectorStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Pages in, points out: chunks every page, embeds the chunks as documents in batches, upserts
 * them under deterministic ids, then removes each page's chunks that no longer exist and, when
 * mirroring a folder or sitemap, the pages that are no longer in it. Re-running
 * on the same pages changes nothing; a changed page is updated in place. A batch that still fails
 * after a few tries is counted and its pages keep their old chunks; a rerun completes the job.
 */
public final class Ingestor {

  /**
   * How one run behaves; {@code indexedKeys} become payload indexes of a new collection. With a
   * {@code source} (the folder or sitemap), every point records it as {@value VectorStore#INGEST_SOURCE};
   * with {@code mirror} too, the run then removes the documents of that source it did not see.
   */
  public record Options(String collection, boolean recreate, int batchSize, List<String> indexedKeys,
      Duration embedTimeout, int maxAttempts, String source, boolean mirror, Set<String> alsoPresent) {

    public Options {
      if (batchSize < 1 || batchSize > 96) {
        throw new IllegalArgumentException("batch size must be 1..96");
      }
      indexedKeys = List.copyOf(indexedKeys);
      alsoPresent = Set.copyOf(alsoPresent);
      if (mirror && source == null) {
        throw new IllegalArgumentException("mirroring needs a source");
      }
    }

    public static Options of(String collection, boolean recreate, List<String> indexedKeys) {
      return new Options(collection, recreate, 96, indexedKeys, Duration.ofMinutes(2), 3, null, false, Set.of());
    }

    public Options withBatchSize(int size) {
      return new Options(collection, recreate, size, indexedKeys, embedTimeout, maxAttempts, source, mirror,
          alsoPresent);
    }

    /**
     * Points remember {@code source}; with {@code mirror}, documents of it that are neither in this
     * run nor in {@code alsoPresent} (pages that could not be fetched this time) are removed.
     */
    public Options fromSource(String source, boolean mirror, Set<String> alsoPresent) {
      return new Options(collection, recreate, batchSize, indexedKeys, embedTimeout, maxAttempts, source, mirror,
          alsoPresent);
    }
  }

  /**
   * The outcome of a run; {@code failed} counts chunks not stored, {@code errors} says why;
   * {@code removedDocuments}/{@code removedChunks}: documents no longer in the mirrored source.
   */
  public record Summary(String collection, int pages, int chunks, int upserted, long deleted, int failed,
      double seconds, List<String> errors, int removedDocuments, long removedChunks) {

    public Summary(String collection, int pages, int chunks, int upserted, long deleted, int failed,
        double seconds, List<String> errors) {
      this(collection, pages, chunks, upserted, deleted, failed, seconds, errors, 0, 0);
    }

    public boolean ok() {
      return failed == 0 && errors.isEmpty();
    }

    /** "docs: 2 pages, 9 chunks, 9 upserted, 0 stale deleted, 1 document removed (3 chunks), 0 chunks failed in 1.2s". */
    public String describe() {
      return String.format(java.util.Locale.ROOT,
          "%s: %s, %s, %d upserted, %d stale deleted, %s removed (%s), %s failed in %.1fs",
          collection, plural(pages, "page"), plural(chunks, "chunk"), upserted, deleted,
          plural(removedDocuments, "document"), plural(removedChunks, "chunk"), plural(failed, "chunk"), seconds);
    }
  }

  /** "1 page", "2 pages". */
  public static String plural(long count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }

  private record Batch(List<Chunk> chunks, Set<Integer> pages) {}

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
    long start = System.nanoTime();
    Run run = new Run(pages, options);
    Future<Void> prepared = options.recreate() ? store.deleteCollection(options.collection()) : Future.succeededFuture();
    return prepared
        .compose(v -> vertx.executeBlocking(() -> {
          List<List<Chunk>> chunked = pages.stream().map(chunker::chunk).toList();
          run.keywordAvgLen = KeywordAnalysis.averageLength(chunked.stream().flatMap(List::stream).map(Chunk::payload).toList());
          return chunked;
        }, false))
        .compose(chunked -> {
          run.chunked = chunked;
          return run.storeBatches(run.batches(), 0);
        })
        .compose(v -> run.count())
        .compose(before -> run.deleteStale(0).compose(v -> run.count()).map(after -> Math.max(0, before - after)))
        .compose(deleted -> run.deleteMissing().map(removed -> {
          progress.finish();
          double seconds = (System.nanoTime() - start) / 1e9;
          return new Summary(options.collection(), pages.size(), run.total, run.upserted, deleted, run.failed,
              seconds, List.copyOf(run.errors), removed.size(), removed.stream().mapToLong(FacetCount::count).sum());
        }))
        .onFailure(err -> progress.finish());
  }

  /** How many points {@code collection} holds; a missing collection holds none. */
  static Future<Long> pointsCount(VectorStore store, String collection) {
    return store.collectionInfo(collection, Deadline.inMillis(60_000))
        .map(info -> info.pointsCount())
        .recover(err -> ServiceException.from(err).code() == ErrorCode.COLLECTION_NOT_FOUND
            ? Future.succeededFuture(0L) : Future.failedFuture(err));
  }

  /** The state of one ingest run; every step is called after the one before completes. */
  private final class Run {
    private final List<Page> pages;
    private final Options options;
    private List<List<Chunk>> chunked;
    /** The average keyword length in tokens of this run's chunks, which a new collection keeps. */
    private double keywordAvgLen;
    private final Set<Integer> failedPages = new HashSet<>();
    private final Set<String> errors = new LinkedHashSet<>();
    private Future<Void> collectionReady;
    private int total;
    private int upserted;
    private int failed;

    Run(List<Page> pages, Options options) {
      this.pages = pages;
      this.options = options;
    }

    /** Batches across page boundaries, so small pages still fill an embedding call. */
    List<Batch> batches() {
      List<Batch> batches = new ArrayList<>();
      List<Chunk> current = new ArrayList<>();
      Set<Integer> currentPages = new HashSet<>();
      for (int p = 0; p < chunked.size(); p++) {
        for (Chunk chunk : chunked.get(p)) {
          current.add(chunk);
          currentPages.add(p);
          total++;
          if (current.size() == options.batchSize()) {
            batches.add(new Batch(current, currentPages));
            current = new ArrayList<>();
            currentPages = new HashSet<>();
          }
        }
      }
      if (!current.isEmpty()) {
        batches.add(new Batch(current, currentPages));
      }
      return batches;
    }

    Future<Void> storeBatches(List<Batch> batches, int index) {
      if (index >= batches.size()) {
        return Future.succeededFuture();
      }
      Batch batch = batches.get(index);
      return attempt(() -> storeBatch(batch), 1)
          .transform(done -> {
            if (done.succeeded()) {
              upserted += batch.chunks().size();
            } else {
              ServiceException error = ServiceException.from(done.cause());
              if (isFatal(error)) {
                return Future.failedFuture(error);
              }
              failed += batch.chunks().size();
              failedPages.addAll(batch.pages());
              errors.add(error.code() + ": " + error.getMessage());
            }
            progress.update(upserted + failed, total);
            return storeBatches(batches, index + 1);
          });
    }

    private Future<Void> storeBatch(Batch batch) {
      List<String> texts = batch.chunks().stream().map(Chunk::embedText).toList();
      Deadline deadline = Deadline.in(options.embedTimeout());
      return embedder.embed(texts, InputType.SEARCH_DOCUMENT, deadline).compose(response -> {
        if (response.vectors().size() != texts.size()) {
          return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR,
              "the embedder returned " + response.vectors().size() + " vectors for " + texts.size() + " texts"));
        }
        return ensureCollection(response).compose(v -> store.upsert(options.collection(), points(batch, response)));
      });
    }

    private List<Point> points(Batch batch, EmbedResponse response) {
      List<Point> points = new ArrayList<>(batch.chunks().size());
      for (int i = 0; i < batch.chunks().size(); i++) {
        Chunk chunk = batch.chunks().get(i);
        JsonObject payload = options.source() == null ? chunk.payload()
            : chunk.payload().copy().put(VectorStore.INGEST_SOURCE, options.source());
        points.add(new Point(chunk.pointId(), response.vectors().get(i), payload));
      }
      return points;
    }

    /** Creates a missing collection with the embedder's vector size; refuses a mismatched one. */
    private Future<Void> ensureCollection(EmbedResponse response) {
      if (collectionReady == null || collectionReady.failed()) {
        int size = response.dimension() > 0 ? response.dimension() : response.vectors().get(0).length;
        collectionReady = store.collectionInfo(options.collection(), Deadline.in(options.embedTimeout())).transform(info -> {
          if (info.succeeded()) {
            if (info.result().vectorSize() != size) {
              return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "collection '"
                  + options.collection() + "' holds vectors of size " + info.result().vectorSize()
                  + " but the embedding model gives " + size + " (use --recreate or another collection)"));
            }
            return Future.succeededFuture();
          }
          if (ServiceException.from(info.cause()).code() == ErrorCode.COLLECTION_NOT_FOUND) {
            return store.createCollection(options.collection(), size, indexedKeys(), keywordAvgLen,
                Deadline.in(VectorStore.ADMIN_TIMEOUT));
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
    private Future<Void> attempt(Supplier<Future<Void>> work, int number) {
      return work.get().recover(err -> {
        ServiceException error = ServiceException.from(err);
        if (number >= options.maxAttempts() || isFatal(error)) {
          return Future.failedFuture(error);
        }
        Promise<Void> later = Promise.promise();
        vertx.setTimer(500L << (number - 1), id -> attempt(work, number + 1).onComplete(later));
        return later.future();
      });
    }

    /** Errors no retry and no other batch can fix: the whole run stops. */
    private boolean isFatal(ServiceException error) {
      return error.code() == ErrorCode.INVALID_REQUEST || error.code() == ErrorCode.UNAUTHORIZED;
    }

    /** Documents of the mirrored source that this run did not see go, with all their chunks. */
    Future<List<FacetCount>> deleteMissing() {
      if (!options.mirror()) {
        return Future.succeededFuture(List.of());
      }
      Set<String> present = new HashSet<>(options.alsoPresent());
      pages.forEach(page -> present.add(page.sourceUrl()));
      return store.deleteMissing(options.collection(), options.source(), present)
          .recover(err -> ServiceException.from(err).code() == ErrorCode.COLLECTION_NOT_FOUND
              ? Future.succeededFuture(List.of()) : Future.failedFuture(err));
    }

    Future<Long> count() {
      return pointsCount(store, options.collection());
    }

    /** Pages whose chunks were all stored lose the chunks they no longer have. */
    Future<Void> deleteStale(int page) {
      if (page >= pages.size()) {
        return Future.succeededFuture();
      }
      if (failedPages.contains(page)) {
        return deleteStale(page + 1);
      }
      List<String> keep = chunked.get(page).stream().map(Chunk::pointId).toList();
      return store.deleteStale(options.collection(), pages.get(page).sourceUrl(), keep)
          .recover(err -> ServiceException.from(err).code() == ErrorCode.COLLECTION_NOT_FOUND
              ? Future.succeededFuture() : Future.failedFuture(err))
          .compose(v -> deleteStale(page + 1));
    }
  }
}
