package dev.ragretrieval.embedding;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.tracing.Spans;
import dev.ragretrieval.upstream.Coalescer;
import io.opentelemetry.api.trace.Span;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Serves {@link #ADDRESS}: an {@link EmbedRequest} in, an {@link EmbedResponse} out. Splits a
 * request into provider calls of at most {@link EmbeddingProvider#maxTextsPerCall()} texts, runs up
 * to {@link #MAX_CONCURRENT_CALLS} of them at once, checks every vector's size and re-assembles
 * them in input order. Failures reply as a {@link ServiceException} with its code, message and
 * retry-after; {@link EmbeddingClient} turns them back into one.
 *
 * <p>Query vectors (SEARCH_QUERY) are kept in a bounded {@link QueryCache}: chatbots ask the same
 * questions again and again, and each miss costs an upstream call. Identical questions that arrive
 * together share one call, and the questions missed in one turn of the event loop go upstream in
 * one call ({@link Coalescer}). Document vectors are never cached: ingestion embeds each text once.
 *
 * <p>The provider stays the deployer's: undeploying does not close it.
 */
public final class EmbeddingVerticle extends VerticleBase {

  public static final String ADDRESS = "rag.embedding.embed";

  /** Calls in flight per request: enough to hide latency, few enough not to trip rate limits. */
  static final int MAX_CONCURRENT_CALLS = 4;

  private final EmbeddingProvider provider;
  /** Finished query vectors, shared with the {@link EmbeddingClient}s that read it before the event bus. */
  private final QueryCache queryCache;
  /** Query vectors on their way, by {@link QueryKey}: the same question asked meanwhile joins the call. */
  private final Map<String, Future<float[]>> inFlight;
  private final EmbeddingLanes lanes;
  /** Questions missing from the cache in one turn of the event loop go upstream in one call. */
  private final Coalescer<EmbedRequest, EmbedResponse> questions;
  private MessageConsumer<Object> consumer;
  private MessageConsumer<Object> laneConsumer;

  /** {@code queryCache} is filled here; give the same one to the {@link EmbeddingClient}s. */
  public EmbeddingVerticle(EmbeddingProvider provider, QueryCache queryCache) {
    this(provider, queryCache, new ConcurrentHashMap<>(), EmbeddingLanes.none());
  }

  private EmbeddingVerticle(EmbeddingProvider provider, QueryCache queryCache, Map<String, Future<float[]>> inFlight,
      EmbeddingLanes lanes) {
    // one turn's requests only: a coalescing client has already waited for more (RAG_COALESCE_WINDOW_MS)
    this.questions = new Coalescer<>(this::embed, this::embedTogether, Coalescer::permanentRefusal, Duration.ZERO);
    this.provider = Objects.requireNonNull(provider, "provider");
    this.queryCache = Objects.requireNonNull(queryCache, "queryCache");
    this.inFlight = inFlight;
    this.lanes = lanes;
  }

  /** Deploys one instance serving {@link #ADDRESS} without a cache; its meters are not scraped (tools, tests). */
  public static Future<String> deploy(Vertx vertx, EmbeddingProvider provider) {
    return deploy(vertx, provider, 0, RagMetrics.detached());
  }

  /** As {@link #deploy(Vertx, EmbeddingProvider)}, with a query-vector cache of that size. */
  public static Future<String> deploy(Vertx vertx, EmbeddingProvider provider, int queryCacheSize) {
    return deploy(vertx, provider, queryCacheSize, RagMetrics.detached());
  }

  /** Deploys one instance serving {@link #ADDRESS} (its start registers the codecs); returns the deployment id. */
  public static Future<String> deploy(Vertx vertx, EmbeddingProvider provider, int queryCacheSize, RagMetrics metrics) {
    return vertx.deployVerticle(new EmbeddingVerticle(provider, QueryCache.of(queryCacheSize, provider, metrics)));
  }

  /**
   * Deploys an instance for each event loop of a default-sized pool
   * ({@link VertxOptions#DEFAULT_EVENT_LOOP_POOL_SIZE}): the instances of one deployment take the
   * loops in turn, so each loop gets one. All serve {@link #ADDRESS} and share {@code queryCache}
   * and the calls in flight; each also serves its own loop's callers on a lane of {@code lanes},
   * which an {@link EmbeddingClient} given the same lanes asks. A loop left without an instance
   * (a larger pool) asks the shared address. The questions of one turn share an upstream call;
   * waiting for more under load (RAG_COALESCE_WINDOW_MS) is the {@link EmbeddingClient}'s, before
   * the event bus. Returns the deployment id.
   */
  public static Future<String> deployPerEventLoop(Vertx vertx, EmbeddingProvider provider, QueryCache queryCache,
      EmbeddingLanes lanes) {
    Map<String, Future<float[]>> inFlight = new ConcurrentHashMap<>();
    return vertx.deployVerticle(() -> new EmbeddingVerticle(provider, queryCache, inFlight, lanes),
        new DeploymentOptions().setInstances(VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE));
  }

  @Override
  public Future<?> start() {
    EmbeddingCodecs.register(vertx);
    consumer = vertx.eventBus().localConsumer(ADDRESS, this::handle);
    if (lanes == EmbeddingLanes.none()) {
      return consumer.completion();
    }
    // start runs on this verticle's event loop: its lane is that loop's
    Thread loop = Thread.currentThread();
    String lane = EmbeddingLanes.laneOfCurrentThread();
    laneConsumer = vertx.eventBus().localConsumer(lane, this::handle);
    return Future.all(consumer.completion(), laneConsumer.completion())
        .onSuccess(registered -> lanes.open(loop, lane));
  }

  @Override
  public Future<?> stop() {
    if (laneConsumer != null) {
      lanes.close(Thread.currentThread());
    }
    return Future.join(consumer == null ? Future.succeededFuture() : consumer.unregister(),
        laneConsumer == null ? Future.succeededFuture() : laneConsumer.unregister());
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
   * Texts that differ only in case, spacing or trailing punctuation share one entry
   * ({@link QueryKey}); upstream gets the caller's own text. A failed call is never cached, and it
   * reaches the caller as its own failure, logged nowhere on the way.
   */
  Future<EmbedResponse> embedThroughCache(EmbedRequest request) {
    if (request.inputType() != InputType.SEARCH_QUERY) {
      return embed(request);
    }
    if (!queryCache.enabled()) {
      // nothing to look up, but a turn's questions still share one upstream call
      return questions.call(request);
    }
    List<String> texts = request.texts();
    List<Future<float[]>> vectors = new ArrayList<>(texts.size());
    Map<String, Integer> fresh = new LinkedHashMap<>();
    List<String> freshTexts = new ArrayList<>();
    for (String text : texts) {
      String key = QueryKey.of(text);
      float[] cached = queryCache.get(key);
      Future<float[]> pending = cached == null ? inFlight.get(key) : null;
      queryCache.count(cached != null || pending != null);
      if (cached != null) {
        vectors.add(Future.succeededFuture(cached));
      } else if (pending != null) {
        vectors.add(pending);
      } else {
        Integer slot = fresh.get(key);
        if (slot == null) {
          slot = freshTexts.size();
          fresh.put(key, slot);
          freshTexts.add(text);
        }
        vectors.add(null); // filled from the upstream call below
      }
    }
    if (Spans.enabled()) {
      // the event-bus receive span: how many of the request's texts the cache (or a call on its way) answered
      Span.current().setAttribute(Spans.CACHE_HITS, (long) (texts.size() - vectors.stream().filter(v -> v == null).count()));
    }
    if (!freshTexts.isEmpty()) {
      Future<EmbedResponse> call = questions.call(new EmbedRequest(List.copyOf(freshTexts), request.inputType(),
          request.deadline()));
      Map<String, Future<float[]>> sent = new LinkedHashMap<>();
      fresh.forEach((key, slot) -> {
        Future<float[]> vector = call.map(response -> response.vectors().get(slot));
        sent.put(key, vector);
        inFlight.put(key, vector);
        vector.onComplete(done -> {
          inFlight.remove(key, vector);
          if (done.succeeded()) {
            queryCache.put(key, done.result());
          }
        });
      });
      for (int i = 0; i < texts.size(); i++) {
        if (vectors.get(i) == null) {
          vectors.set(i, sent.get(QueryKey.of(texts.get(i))));
        }
      }
    }
    return Future.all(vectors).map(all -> new EmbedResponse(
        vectors.stream().map(Future::result).toList(), provider.model(), provider.dimension()));
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

  /** Several requests' texts in one request (cut into calls as any other); each gets its own vectors back. */
  private Future<List<EmbedResponse>> embedTogether(List<EmbedRequest> requests) {
    return embed(EmbedRequest.together(requests)).map(all -> all.split(requests));
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

  /** A bug of ours becomes INTERNAL with the bug as its cause; the HTTP exchange logs it, once. */
  private static ServiceException toServiceException(Throwable failure) {
    return ServiceException.from(failure);
  }
}
