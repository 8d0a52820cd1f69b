package dev.ragretrieval.embedding;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@link #ADDRESS}: an {@link EmbedRequest} in, an {@link EmbedResponse} out. Splits a
 * request into provider calls of at most {@link EmbeddingProvider#maxTextsPerCall()} texts, runs up
 * to {@link #MAX_CONCURRENT_CALLS} of them at once, checks every vector's size and re-assembles
 * them in input order. Failures reply as a {@link ServiceException} with its code, message and
 * retry-after; {@link EmbeddingClient} turns them back into one.
 *
 * <p>Query vectors (SEARCH_QUERY) are kept in a bounded cache: chatbots ask the same questions
 * again and again, and each miss costs an upstream call. Identical questions that arrive together
 * share one call. Document vectors are never cached:
 * ingestion embeds each text once.
 *
 * <p>The provider stays the deployer's: undeploying does not close it.
 */
public final class EmbeddingVerticle extends VerticleBase {

  public static final String ADDRESS = "rag.embedding.embed";

  /** Calls in flight per request: enough to hide latency, few enough not to trip rate limits. */
  static final int MAX_CONCURRENT_CALLS = 4;

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddingVerticle.class);

  private final EmbeddingProvider provider;
  private final AsyncCache<String, float[]> queryCache;
  private MessageConsumer<Object> consumer;

  /** {@code queryCacheSize} = query vectors kept; 0 = no cache. */
  public EmbeddingVerticle(EmbeddingProvider provider, int queryCacheSize) {
    this.provider = Objects.requireNonNull(provider, "provider");
    this.queryCache = queryCacheSize > 0 ? Caffeine.newBuilder().maximumSize(queryCacheSize).buildAsync() : null;
  }

  /** Deploys one instance serving {@link #ADDRESS} (its start registers the codecs); returns the deployment id. */
  public static Future<String> deploy(Vertx vertx, EmbeddingProvider provider) {
    return deploy(vertx, provider, 0);
  }

  /** As {@link #deploy(Vertx, EmbeddingProvider)}, with a query-vector cache of that size. */
  public static Future<String> deploy(Vertx vertx, EmbeddingProvider provider, int queryCacheSize) {
    return vertx.deployVerticle(new EmbeddingVerticle(provider, queryCacheSize));
  }

  @Override
  public Future<?> start() {
    EmbeddingCodecs.register(vertx);
    consumer = vertx.eventBus().localConsumer(ADDRESS, this::handle);
    return consumer.completion();
  }

  @Override
  public Future<?> stop() {
    return consumer == null ? Future.succeededFuture() : consumer.unregister();
  }

  private void handle(Message<Object> message) {
    if (!(message.body() instanceof EmbedRequest request)) {
      message.reply(new EmbeddingFailure(
          new ServiceException(ErrorCode.INVALID_REQUEST, "the embedding address takes an EmbedRequest")));
      return;
    }
    embedThroughCache(request).onComplete(done -> {
      if (done.succeeded()) {
        message.reply(done.result());
      } else {
        message.reply(new EmbeddingFailure(toServiceException(done.cause())));
      }
    });
  }

  /**
   * Answers cached query texts at once and sends only the others upstream, each once: a text that
   * is already on its way (the same question from many users at the same moment) joins that call.
   */
  Future<EmbedResponse> embedThroughCache(EmbedRequest request) {
    if (queryCache == null || request.inputType() != InputType.SEARCH_QUERY) {
      return embed(request);
    }
    List<String> texts = request.texts();
    for (String text : texts) {
      RagMetrics.get().cache("query_embedding", queryCache.getIfPresent(text) != null);
    }
    // a failed load leaves the cache by itself, so the next request tries again
    CompletableFuture<Map<String, float[]>> found = queryCache.getAll(texts, (missing, executor) -> {
      List<String> fresh = List.copyOf(missing);
      return embed(new EmbedRequest(fresh, request.inputType(), request.deadline()))
          .map(response -> {
            Map<String, float[]> loaded = new HashMap<>();
            for (int i = 0; i < fresh.size(); i++) {
              loaded.put(fresh.get(i), response.vectors().get(i));
            }
            return loaded;
          })
          .toCompletionStage().toCompletableFuture();
    });
    return Future.fromCompletionStage(found, vertx.getOrCreateContext())
        .recover(failure -> Future.failedFuture(
            failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure))
        .map(vectors -> new EmbedResponse(texts.stream().map(vectors::get).toList(), provider.model(),
            provider.dimension()));
  }

  Future<EmbedResponse> embed(EmbedRequest request) {
    List<String> texts = request.texts();
    if (texts.isEmpty()) {
      return Future.succeededFuture(new EmbedResponse(List.of(), provider.model(), provider.dimension()));
    }
    int size = Math.max(1, provider.maxTextsPerCall());
    int batches = (texts.size() + size - 1) / size;
    float[][] vectors = new float[texts.size()][];
    AtomicBoolean failed = new AtomicBoolean();
    int lanes = Math.min(MAX_CONCURRENT_CALLS, batches);
    List<Future<Void>> running = new ArrayList<>(lanes);
    for (int lane = 0; lane < lanes; lane++) {
      running.add(runLane(lane, lanes, batches, size, request, vectors, failed));
    }
    return Future.all(running)
        .map(all -> new EmbedResponse(Arrays.asList(vectors), provider.model(), provider.dimension()));
  }

  /** Runs batches lane, lane+lanes, ... one after another; stops early once any batch failed. */
  private Future<Void> runLane(int batch, int lanes, int batches, int size, EmbedRequest request,
      float[][] vectors, AtomicBoolean failed) {
    if (batch >= batches || failed.get()) {
      return Future.succeededFuture();
    }
    int from = batch * size;
    List<String> slice = request.texts().subList(from, Math.min(from + size, request.texts().size()));
    return callProvider(slice, request)
        .compose(result -> {
          check(result, slice.size());
          for (int i = 0; i < result.size(); i++) {
            vectors[from + i] = result.get(i);
          }
          return runLane(batch + lanes, lanes, batches, size, request, vectors, failed);
        })
        .onFailure(error -> failed.set(true));
  }

  private Future<List<float[]>> callProvider(List<String> slice, EmbedRequest request) {
    try {
      return provider.embed(slice, request.inputType(), request.deadline());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /** Whatever the provider, a wrong count or vector size is the upstream's fault, never the caller's. */
  private void check(List<float[]> result, int expected) {
    if (result == null || result.size() != expected) {
      throw new ServiceException(ErrorCode.UPSTREAM_ERROR, "the embedding provider returned "
          + (result == null ? 0 : result.size()) + " vectors for " + expected + " texts");
    }
    for (float[] vector : result) {
      if (vector == null || vector.length != provider.dimension()) {
        throw new ServiceException(ErrorCode.UPSTREAM_ERROR, "the embedding provider returned a vector of size "
            + (vector == null ? 0 : vector.length) + ", expected " + provider.dimension());
      }
    }
  }

  private static ServiceException toServiceException(Throwable failure) {
    if (!(failure instanceof ServiceException)) {
      LOG.warn("embedding failed unexpectedly", failure);
    }
    return ServiceException.from(failure);
  }
}
