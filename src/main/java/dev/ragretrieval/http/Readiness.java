package dev.ragretrieval.http;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.VectorStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;

/**
 * What /health/ready reports (docs/API.md section 8): the vector store answers (its circuit is not
 * open), the default collection exists, its vector size equals the embedder's, and the embedder
 * is configured and its circuit is not open.
 */
public final class Readiness {

  /** A probe that hangs is a failed probe: Kubernetes must hear back within its own timeout. */
  private static final long PROBE_TIMEOUT_MS = 2000;

  public record Report(boolean up, String reason, JsonArray checks) {
    public JsonObject toJson() {
      JsonObject json = new JsonObject().put("status", up ? "UP" : "DOWN");
      if (!up) {
        json.put("reason", reason);
      }
      return json.put("checks", checks);
    }
  }

  private final VectorStore store;
  private final EmbeddingProvider provider;
  private final String collection;
  private final AppConfig.Embedding embedding;
  /** Why the service is not ready whatever the store says (e.g. the sample book is still loading); null when none. */
  private volatile String startingUp;
  /** Why the bundled sample book could not be loaded at start-up; said beside a missing collection. */
  private volatile String sampleBookProblem;

  public Readiness(VectorStore store, EmbeddingProvider provider, AppConfig config) {
    this.store = store;
    this.provider = provider;
    this.collection = config.qdrant().collection();
    this.embedding = config.embedding();
  }

  public static Report shuttingDown() {
    return new Report(false, "the service is shutting down", new JsonArray());
  }

  /**
   * Holds readiness DOWN with {@code reason} until {@link #started()}: a half-loaded collection
   * already exists with the right vector size, yet answers from only part of the book.
   */
  public void startingUp(String reason) {
    startingUp = reason;
  }

  public void started() {
    startingUp = null;
  }

  /** The start-up's sample book failed: a missing default collection is reported with this reason. */
  public void sampleBookFailed(String problem) {
    sampleBookProblem = problem;
  }

  public Future<Report> check() {
    String pending = startingUp;
    if (pending != null) {
      return Future.succeededFuture(new Report(false, pending,
          new JsonArray().add(check("startup", pending)).add(embedder())));
    }
    // asked twice at once, so of a Qdrant cluster two nodes in turn: a node just restarted can hold
    // a call for seconds while it catches up (RealQdrantClusterTest saw 1.8-3.8 s), and one such
    // node must not take readiness DOWN while the others answer. The store's channel hedges such a
    // read too, but only while its budget lasts, which a cluster slow everywhere spends: the second
    // ask does not depend on it. The first success counts; a failure only when both failed (with one
    // still hanging, the probe ends at its timeout).
    Future<CollectionInfo> one = collectionInfo();
    Future<CollectionInfo> other = collectionInfo();
    Future<CollectionInfo> info = Future.any(one, other)
        .transform(done -> one.succeeded() ? one : other.succeeded() ? other : one);
    return info.timeout(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .map(this::report)
        .otherwise(this::report);
  }

  private Future<CollectionInfo> collectionInfo() {
    try {
      return store.collectionInfo(collection, Deadline.inMillis(PROBE_TIMEOUT_MS));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private Report report(CollectionInfo info) {
    JsonArray checks = new JsonArray()
        .add(check("vector_store", null))
        .add(check("collection", null).put("collection", collection).put("points", info.pointsCount()));
    String sizeProblem = info.vectorSize() == embedding.dimension() ? null
        : "collection '" + collection + "' holds vectors of size " + info.vectorSize()
            + " but the embedder (" + embedding.modelName() + ") gives " + embedding.dimension();
    checks.add(check("vector_size", sizeProblem).put("expected", embedding.dimension()).put("actual", info.vectorSize()));
    JsonObject embedder = embedder();
    checks.add(embedder);
    String problem = sizeProblem != null ? sizeProblem : embedder.getString("reason");
    return new Report(problem == null, problem, checks);
  }

  private Report report(Throwable failure) {
    JsonArray checks = new JsonArray();
    String reason;
    if (failure instanceof ServiceException e && e.code() == ErrorCode.COLLECTION_NOT_FOUND) {
      String book = sampleBookProblem;
      reason = "collection '" + collection + "' does not exist"
          + (book == null ? "" : " (the sample book was not loaded: " + book + ")");
      checks.add(check("vector_store", null)).add(check("collection", reason).put("collection", collection));
    } else {
      reason = failure instanceof ServiceException e
          ? "the vector store does not answer: " + e.getMessage()
          : "the vector store did not answer within " + PROBE_TIMEOUT_MS + " ms";
      checks.add(check("vector_store", reason));
    }
    checks.add(embedder());
    return new Report(false, reason, checks);
  }

  /** DOWN while the provider's circuit is open, as the vector store's check is DOWN while Qdrant's is. */
  private JsonObject embedder() {
    String outage = provider.circuitOpen()
        ? "the embedding provider cannot be reached (circuit open after repeated failures)" : null;
    return check("embedder", outage)
        .put("provider", embedding.provider().name().toLowerCase(java.util.Locale.ROOT))
        .put("model", embedding.modelName())
        .put("dimension", embedding.dimension());
  }

  private static JsonObject check(String name, String problem) {
    JsonObject check = new JsonObject().put("name", name).put("status", problem == null ? "UP" : "DOWN");
    return problem == null ? check : check.put("reason", problem);
  }
}
