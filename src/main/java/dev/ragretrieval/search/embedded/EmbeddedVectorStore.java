package dev.ragretrieval.search.embedded;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.tracing.Spans;
import dev.ragretrieval.upstream.Upstream;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.CollectionName;
import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.search.StoredChunk;
import dev.ragretrieval.search.VectorStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default vector store: one Lucene HNSW index per collection under
 * {@code <dataDir>/collections/<name>/}, with the same semantics as Qdrant (cosine scores,
 * exact and any-of payload filters, upsert by id). All Lucene and file work runs on a worker
 * pool, never on an event loop.
 */
public final class EmbeddedVectorStore implements VectorStore {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedVectorStore.class);
  private static final String STORE = "embedded";
  private static final String META_FILE = "collection.json";

  private final Path collectionsDir;
  private final boolean readOnly;
  private final WorkerExecutor workers;
  /** Lucene work has no upstream timeout of its own: requests bring their deadline, admin work gets this long. */
  private static final Duration ADMIN = Duration.ofHours(1);

  private final Map<String, LuceneCollection> open = new ConcurrentHashMap<>();
  private final Upstream upstream;

  public EmbeddedVectorStore(Vertx vertx, Path dataDir, RagMetrics metrics) {
    this(vertx, dataDir, metrics, false);
  }

  /** {@code readOnly}: searches only; creating, changing or deleting a collection is refused. */
  public EmbeddedVectorStore(Vertx vertx, Path dataDir, RagMetrics metrics, boolean readOnly) {
    this.collectionsDir = dataDir.resolve("collections");
    this.readOnly = readOnly;
    this.workers = vertx.createSharedWorkerExecutor("rag-embedded-store", 4);
    this.upstream = Upstream.inProcess(vertx, metrics, Upstream.Kind.VECTOR_STORE, STORE, "the embedded store", ADMIN);
  }

  @Override
  public Future<List<ScoredPoint>> search(SearchRequest request) {
    return run("search", request.deadline(), () -> searchNow(request));
  }

  @Override
  public Future<List<List<ScoredPoint>>> searchBatch(List<SearchRequest> requests) {
    Deadline deadline = requests.stream().map(SearchRequest::deadline).reduce(Deadline::min)
        .orElseGet(() -> Deadline.in(ADMIN));
    return run("search_batch", deadline, () -> {
      List<List<ScoredPoint>> results = new ArrayList<>(requests.size());
      for (SearchRequest request : requests) {
        results.add(searchNow(request));
      }
      return results;
    });
  }

  @Override
  public Future<Boolean> hybrid(String collection, Deadline deadline) {
    return run("collection_info", deadline, () -> existing(collection).hybrid());
  }

  @Override
  public Future<CollectionInfo> collectionInfo(String collection, Deadline deadline) {
    return run("collection_info", deadline, () -> {
      LuceneCollection c = existing(collection);
      return new CollectionInfo(collection, c.vectorSize(), c.count(), c.hybrid());
    });
  }

  @Override
  public Future<List<CollectionInfo>> collections(Deadline deadline) {
    return run("list_collections", deadline, () -> {
      if (!Files.isDirectory(collectionsDir)) {
        return List.of();
      }
      List<String> names;
      try (Stream<Path> dirs = Files.list(collectionsDir)) {
        names = dirs.filter(dir -> Files.isRegularFile(dir.resolve(META_FILE)))
            .map(dir -> dir.getFileName().toString())
            .filter(name -> CollectionName.problem(name, true).isEmpty())
            .sorted()
            .toList();
      }
      List<CollectionInfo> infos = new ArrayList<>(names.size());
      for (String name : names) {
        if (deadline.expired()) {
          throw deadline.timeout("the embedded store");
        }
        try {
          LuceneCollection c = find(name);
          if (c != null) {
            infos.add(new CollectionInfo(name, c.vectorSize(), c.count(), c.hybrid()));
          }
        } catch (LockObtainFailedException busy) {
          infos.add(busyCollection(name)); // another process (an ingest) writes it: read without the lock
        }
      }
      return infos;
    });
  }

  @Override
  public Future<Void> createCollection(String collection, int vectorSize, List<String> indexedKeys,
      Deadline deadline) {
    return run("create_collection", deadline, () -> {
      refuseIfReadOnly();
      Optional<String> badName = CollectionName.problem(collection, true);
      if (badName.isPresent()) {
        throw new ServiceException(ErrorCode.INVALID_REQUEST, badName.get());
      }
      if (vectorSize < 1) {
        throw new ServiceException(ErrorCode.INVALID_REQUEST, "vector size must be positive");
      }
      synchronized (this) {
        if (find(collection) != null) {
          return null; // already there, as Qdrant's create-if-missing callers expect
        }
        Path dir = collectionsDir.resolve(collection);
        Files.createDirectories(dir.resolve("index"));
        JsonObject meta = new JsonObject().put("vector_size", vectorSize).put("distance", "Cosine")
            .put("indexed_keys", new JsonArray(new ArrayList<>(indexedKeys)));
        Files.writeString(dir.resolve(META_FILE), meta.encodePrettily(), StandardCharsets.UTF_8);
        open.put(collection, new LuceneCollection(dir.resolve("index"), vectorSize, false));
      }
      return null;
    });
  }

  @Override
  public Future<Void> deleteCollection(String collection, Deadline deadline) {
    return run("delete_collection", deadline, () -> {
      refuseIfReadOnly();
      if (CollectionName.problem(collection, true).isPresent()) {
        return null;
      }
      synchronized (this) {
        LuceneCollection c = open.remove(collection);
        if (c != null) {
          c.close();
        }
        deleteTree(collectionsDir.resolve(collection));
      }
      return null;
    });
  }

  @Override
  public Future<Void> upsert(String collection, List<Point> points, Deadline deadline) {
    return run("upsert", deadline, () -> {
      LuceneCollection c = existing(collection);
      for (Point point : points) {
        checkSize(c, point.vector());
      }
      c.upsert(points);
      return null;
    });
  }

  @Override
  public Future<Void> deleteStale(String collection, String sourceUrl, Collection<String> keepIds,
      Deadline deadline) {
    return run("delete_stale", deadline, () -> {
      existing(collection).deleteStale(sourceUrl, List.copyOf(keepIds));
      return null;
    });
  }

  @Override
  public Future<List<FacetCount>> deleteMissing(String collection, String source, Collection<String> keepSourceUrls,
      Deadline deadline) {
    return run("delete_missing", deadline, () -> existing(collection).deleteMissing(INGEST_SOURCE, source, List.copyOf(keepSourceUrls)));
  }

  @Override
  public Future<List<StoredChunk>> storedChunks(String collection, Collection<String> sourceUrls, List<String> keys,
      Deadline deadline) {
    return run("stored_chunks", deadline, () -> existing(collection).stored("source_url", List.copyOf(sourceUrls), keys));
  }

  @Override
  public Future<Void> setPagePayload(String collection, String sourceUrl, JsonObject fields, Deadline deadline) {
    return run("set_payload", deadline, () -> {
      existing(collection).setPayload("source_url", sourceUrl, fields);
      return null;
    });
  }

  @Override
  public Future<List<FacetCount>> facet(String collection, String key, int limit, Deadline deadline) {
    return run("facet", deadline, () -> {
      if (deadline.expired()) {
        throw deadline.timeout("the embedded store");
      }
      return existing(collection).facet(key, limit);
    });
  }

  /**
   * Before an ingest: the data folder can be written and no other process is writing the
   * collection now. A failure names the process holding the collection's write lock.
   */
  @Override
  public Future<Void> checkWritable(String collection, Deadline deadline) {
    return run("check_writable", deadline, () -> {
      refuseIfReadOnly();
      Optional<String> badName = CollectionName.problem(collection, true);
      if (badName.isPresent()) {
        throw new ServiceException(ErrorCode.INVALID_REQUEST, badName.get());
      }
      try {
        Files.createDirectories(collectionsDir);
        Path probe = Files.createTempFile(collectionsDir, ".write-check", ".tmp");
        Files.delete(probe);
      } catch (IOException e) {
        throw new ServiceException(ErrorCode.CONNECTION_ERROR,
            "cannot write the embedded store's folder " + collectionsDir + " (RAG_DATA_DIR): " + reason(e));
      }
      Path index = collectionsDir.resolve(collection).resolve("index");
      if (Files.isDirectory(index)) {
        try {
          LuceneCollection.checkWritable(index);
        } catch (LockObtainFailedException e) {
          throw new ServiceException(ErrorCode.CONNECTION_ERROR, "collection '" + collection + "' under "
              + collectionsDir + " is being written by " + LuceneCollection.writerOf(index)
              + "; wait for it to finish or stop it, then run the same command again");
        }
      }
      return null;
    });
  }

  private static ServiceException filesFailed(Throwable cause) {
    return new ServiceException(ErrorCode.CONNECTION_ERROR, "the embedded vector store cannot read or write its files"
        + (cause instanceof IOException io ? " (RAG_DATA_DIR): " + reason(io) : ""));
  }

  /** What went wrong with a file or folder, in words and without a class name: the JDK's exceptions carry only the path. */
  private static String reason(IOException e) {
    if (e instanceof AccessDeniedException denied) {
      return "permission denied on " + denied.getFile();
    }
    if (e instanceof NoSuchFileException missing) {
      return "no such file or folder: " + missing.getFile();
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getFile() + ": " + fs.getReason();
    }
    return e.getMessage() == null ? "an input/output error" : e.getMessage();
  }

  @Override
  public Future<Void> close() {
    return workers.<Void>executeBlocking(() -> {
      synchronized (this) {
        for (LuceneCollection c : open.values()) {
          c.close();
        }
        open.clear();
      }
      return null;
    }, false).eventually(() -> workers.close());
  }

  private List<ScoredPoint> searchNow(SearchRequest request) throws IOException {
    if (request.deadline().expired()) {
      throw request.deadline().timeout("the embedded store");
    }
    LuceneCollection c = existing(request.collection());
    checkSize(c, request.vector());
    if (request.wantsHybrid() && c.hybrid()) {
      return c.hybridSearch(request.vector(), request.text(), request.limit(), request.scoreThreshold(), request.filter(),
          request.fusion());
    }
    return c.search(request.vector(), request.limit(), request.scoreThreshold(), request.filter());
  }

  private void refuseIfReadOnly() {
    if (readOnly) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "the embedded store was opened read-only");
    }
  }

  private static void checkSize(LuceneCollection c, float[] vector) {
    if (vector.length != c.vectorSize()) {
      throw new ServiceException(ErrorCode.UPSTREAM_ERROR, "vector size " + vector.length
          + " does not match the collection's vector size " + c.vectorSize());
    }
  }

  private LuceneCollection existing(String collection) throws IOException {
    LuceneCollection c = find(collection);
    if (c == null) {
      throw new ServiceException(ErrorCode.COLLECTION_NOT_FOUND,
          "collection '" + collection + "' does not exist");
    }
    return c;
  }

  /** The open collection, opening it from disk on first use; null when it does not exist. */
  private LuceneCollection find(String collection) throws IOException {
    if (CollectionName.problem(collection, true).isPresent()) {
      return null;
    }
    LuceneCollection c = open.get(collection);
    if (c != null) {
      if (Files.exists(collectionsDir.resolve(collection).resolve(META_FILE))) {
        return c;
      }
      // another process deleted it
      synchronized (this) {
        if (open.remove(collection, c)) {
          c.close();
        }
      }
      return null;
    }
    synchronized (this) {
      c = open.get(collection);
      if (c != null) {
        return c;
      }
      Path dir = collectionsDir.resolve(collection);
      String meta;
      try {
        meta = Files.readString(dir.resolve(META_FILE), StandardCharsets.UTF_8);
      } catch (NoSuchFileException missing) {
        return null;
      }
      int vectorSize = new JsonObject(meta).getInteger("vector_size");
      c = new LuceneCollection(dir.resolve("index"), vectorSize, readOnly);
      open.put(collection, c);
      return c;
    }
  }

  /** A collection another process holds the write lock of, counted through a read-only reader. */
  private CollectionInfo busyCollection(String name) throws IOException {
    Path dir = collectionsDir.resolve(name);
    int vectorSize = new JsonObject(Files.readString(dir.resolve(META_FILE), StandardCharsets.UTF_8))
        .getInteger("vector_size");
    try (Directory index = FSDirectory.open(dir.resolve("index"));
        DirectoryReader reader = DirectoryReader.open(index)) {
      return new CollectionInfo(name, vectorSize, reader.numDocs(), false);
    } catch (IndexNotFoundException empty) {
      return new CollectionInfo(name, vectorSize, 0, false);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * Lucene's failures map to contract codes here; deadline checks, metrics and INTERNAL are the
   * seam's. Work whose deadline passed while it waited for a worker is not started.
   */
  private <T> Future<T> run(String operation, Deadline deadline, Callable<T> work) {
    // the attempt's span says which store and operation it is (db.* attributes)
    return upstream.call(operation, deadline, budget -> Spans.store("lucene", operation, workers.executeBlocking(() -> {
      if (deadline.expired()) {
        throw deadline.timeout("the embedded vector store");
      }
      try {
        return work.call();
      } catch (ServiceException e) {
        throw e;
      } catch (LockObtainFailedException e) {
        throw new ServiceException(ErrorCode.CONNECTION_ERROR,
            "the embedded vector store's files are being written by another process; try again when it has finished");
      } catch (RuntimeException e) {
        if (!(e instanceof java.io.UncheckedIOException || e instanceof org.apache.lucene.store.AlreadyClosedException)) {
          throw e; // a bug of ours: INTERNAL
        }
        LOG.warn("embedded vector store {} failed: {}", operation, e.toString());
        throw filesFailed(e.getCause());
      } catch (Exception e) {
        LOG.warn("embedded vector store {} failed: {}", operation, e.toString());
        throw filesFailed(e);
      }
    }, false)));
  }
}
