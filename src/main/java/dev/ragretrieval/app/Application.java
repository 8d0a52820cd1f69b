package dev.ragretrieval.app;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigException;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.http.HttpShared;
import dev.ragretrieval.http.HttpVerticle;
import dev.ragretrieval.http.Readiness;
import dev.ragretrieval.http.RequestGate;
import dev.ragretrieval.ingest.SampleBook;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.tracing.Tracing;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running service: the {@link Components} (embedding, vector store, retrieval) and the HTTP
 * verticle, started in that order and stopped gracefully in reverse. The Vertx instance stays the caller's.
 */
public final class Application {

  private static final Logger LOG = LoggerFactory.getLogger(Application.class);
  /** When the grace is over, how long the last answers (503s, error events) get to be written before the server closes. */
  private static final Duration EXPIRY_FLUSH = Duration.ofSeconds(2);

  private final Vertx vertx;
  private final AppConfig config;
  private final RagMetrics metrics;
  private final RequestGate gate;
  private Readiness readiness;
  private Components parts;
  private VectorStore store;
  private EmbeddingClient embeddings;
  /** Every HTTP verticle instance deployed (one per event loop); they share the port. */
  private final List<HttpVerticle> http = new CopyOnWriteArrayList<>();
  private String httpDeployment;
  private Future<Void> shutdown;
  /** Why readiness was DOWN when start-up finished; null when it was UP. */
  private volatile String notReadyReason;

  private Application(Vertx vertx, AppConfig config, RagMetrics metrics) {
    this.vertx = vertx;
    this.config = config;
    this.metrics = metrics;
    this.gate = new RequestGate(config.http().maxInFlight(), metrics);
  }

  /** As {@link #start(Vertx, AppConfig, RagMetrics, Handler)} with meters no one scrapes (tests without /metrics). */
  public static Future<Application> start(Vertx vertx, AppConfig config, Handler<RoutingContext> metricsHandler) {
    return start(vertx, config, RagMetrics.detached(), metricsHandler);
  }

  /**
   * Starts everything, recording in {@code metrics}; {@code metricsHandler} serves them at /metrics
   * (null: no /metrics). On failure whatever did start is stopped again.
   */
  public static Future<Application> start(Vertx vertx, AppConfig config, RagMetrics metrics,
      Handler<RoutingContext> metricsHandler) {
    Application app = new Application(vertx, config, metrics);
    Tracing.allowQueryText(config.tracing().queryText());
    // HTTP listens before the sample book loads: liveness answers at once and readiness says why it is DOWN
    return Components.start(vertx, config, metrics)
        .compose(started -> {
          app.parts = started;
          app.store = started.store();
          app.embeddings = started.embeddings();
          return app.startHttp(metricsHandler);
        })
        .compose(v -> app.warmUpEmbedder())
        .compose(v -> app.prepareStore())
        .compose(v -> app.checkCollection())
        .map(app)
        .recover(failure -> app.stopAll().transform(stopped -> Future.failedFuture(failure)));
  }

  /** Empty when the service was ready at the end of start-up, else why not (the "ready" line depends on it). */
  public java.util.Optional<String> notReadyReason() {
    return java.util.Optional.ofNullable(notReadyReason);
  }

  public int httpPort() {
    return http.get(0).port();
  }

  public VectorStore store() {
    return store;
  }

  public EmbeddingClient embeddings() {
    return embeddings;
  }

  /** The embedding provider (tests: whether start-up warmed it up). */
  EmbeddingProvider provider() {
    return parts.provider();
  }

  public RetrievalService retrieval() {
    return parts.retrieval();
  }

  public AppConfig config() {
    return config;
  }

  public RagMetrics metrics() {
    return metrics;
  }

  /**
   * Graceful: readiness goes DOWN and new /v1 work gets 503 at once; requests and streams in flight
   * may finish within the shutdown grace. When it expires, every JSON request still open gets 503
   * OVERLOADED with Retry-After and every open stream an OVERLOADED error event and its end; then
   * the server, the verticles and the store close.
   * Calling it again returns the same future.
   */
  public synchronized Future<Void> shutdown() {
    if (shutdown == null) {
      gate.drain();
      LOG.info("shutting down: readiness DOWN, waiting up to {} ms for {} request(s) in flight",
          config.http().shutdownGrace().toMillis(), gate.inFlight());
      shutdown = gate.awaitIdle(vertx, config.http().shutdownGrace())
          .compose(idle -> {
            if (idle) {
              return Future.succeededFuture();
            }
            LOG.warn("shutdown grace over with {} request(s) still in flight; answering them 503 OVERLOADED",
                gate.inFlight());
            return gate.expire(vertx, EXPIRY_FLUSH);
          })
          .compose(flushed -> stopAll())
          .onSuccess(v -> LOG.info("shut down"));
    }
    return shutdown;
  }

  /**
   * On SIGTERM: graceful shutdown, then exit 0 (a plain shutdown hook would leave the JVM's 143).
   * If shutting down hangs, the process still exits shortly after the grace.
   */
  @SuppressWarnings("restriction")
  public Application installSignalHandler() {
    sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> {
      Thread watchdog = new Thread(() -> {
        try {
          Thread.sleep(config.http().shutdownGrace().toMillis() + 10_000);
        } catch (InterruptedException e) {
          return;
        }
        System.exit(0);
      }, "shutdown-watchdog");
      watchdog.setDaemon(true);
      watchdog.start();
      shutdown()
          .transform(done -> vertx.close())
          .onComplete(closed -> System.exit(0));
    });
    return this;
  }

  /** The local model loads before readiness goes UP (not at the first question); a failure is logged, not fatal. */
  private Future<Void> warmUpEmbedder() {
    return parts.provider().warmUp().recover(failure -> {
      LOG.warn("the embedding model did not get ready at start-up: {}", ServiceException.from(failure).getMessage());
      return Future.succeededFuture();
    });
  }

  /** In embedded mode an empty store is filled from the bundled sample book before readiness goes UP. */
  private Future<Void> prepareStore() {
    return SampleBook.loadIfEmpty(vertx, config, store, embeddings::embed)
        // questions asked while it loaded must not be answered from before it
        .andThen(loaded -> parts.retrieval().storeChanged())
        .<Void>mapEmpty()
        .recover(failure -> {
          // not fatal: the service still starts and readiness reports the empty collection, and why
          String problem = ServiceException.from(failure).getMessage();
          LOG.warn("the sample book was not loaded: {}", problem);
          readiness.sampleBookFailed(problem);
          return Future.succeededFuture();
        });
  }

  /** A missing collection or a wrong vector size is logged, not fatal: readiness keeps reporting it. */
  private Future<Void> checkCollection() {
    readiness.started();
    return readiness.check()
        .onSuccess(report -> {
          notReadyReason = report.up() ? null : report.reason();
          if (report.up()) {
            LOG.info("collection '{}' is ready", config.qdrant().collection());
          } else {
            LOG.warn("not ready yet: {}", report.reason());
          }
        })
        .mapEmpty();
  }

  private Future<Void> startHttp(Handler<RoutingContext> metricsHandler) {
    RetrievalService service = parts.retrieval();
    readiness = new Readiness(store, parts.provider(), config);
    readiness.startingUp("preparing collection '" + config.qdrant().collection() + "' (loading the sample book if it is empty)");
    // built once: every instance admits through the same gate, counts in the same metrics and
    // limits connections together
    HttpShared shared = HttpShared.create(vertx, config, service, readiness, gate, metrics, metricsHandler);
    int instances = config.http().instances();
    return vertx.deployVerticle(() -> {
          HttpVerticle verticle = new HttpVerticle(shared);
          http.add(verticle);
          return verticle;
        }, new DeploymentOptions().setInstances(instances))
        .recover(failure -> Future.failedFuture(new ConfigException("cannot listen on " + config.http().host()
            + ":" + config.http().port() + " (RAG_HTTP_PORT): " + failure.getMessage())))
        .map(id -> {
          httpDeployment = id;
          LOG.info("listening on {}:{} ({} HTTP verticle instance(s))", config.http().host(),
              httpPort(), instances);
          return null;
        });
  }

  /** Stops in reverse order; each step runs whether or not the one before succeeded. */
  private Future<Void> stopAll() {
    return undeploy(httpDeployment)
        .compose(v -> parts == null ? Future.succeededFuture() : parts.close());
  }

  private Future<Void> undeploy(String deployment) {
    return deployment == null ? Future.succeededFuture()
        : Components.quietly("undeploying a verticle", () -> vertx.undeploy(deployment));
  }
}
