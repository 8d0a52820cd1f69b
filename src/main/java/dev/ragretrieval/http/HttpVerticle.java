package dev.ragretrieval.http;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.tracing.Tracing;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.CorsHandler;
import io.vertx.ext.web.handler.StaticHandler;
import java.util.List;
import java.util.Set;

/**
 * The HTTP face of the service (docs/API.md sections 4 to 8): it only wires the routes, each a
 * list of what happens to a request. Deployed once per event loop; the instances share the port
 * and everything in {@link HttpShared}.
 */
public final class HttpVerticle extends VerticleBase {

  private final HttpShared shared;
  private HttpServer server;

  public HttpVerticle(HttpShared shared) {
    this.shared = shared;
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(OpenApiHandler::read)
        .compose(spec -> {
          HttpEdge edge = new HttpEdge(shared.config.http(), shared.connections, shared.metrics);
          server = vertx.createHttpServer(edge.options());
          return edge.install(server, router(edge, spec)).listen();
        });
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  /** The bound port (the configured one, or the one picked for port 0). */
  public int port() {
    return server.actualPort();
  }

  private Router router(HttpEdge edge, Buffer openApi) {
    AppConfig.Http http = shared.config.http();
    RetrievalService service = shared.service;
    RagMetrics metrics = shared.metrics;
    Router router = Router.router(vertx);

    router.route().handler(edge::track);
    if (Tracing.current().enabled()) {
      router.route().handler(TraceHandler.create());
    }
    router.route().failureHandler(FailureHandler.create(http.bodyLimitBytes(), metrics));
    router.route().handler(cors(http.corsOrigins()));

    get(router, "/health/live").handler(HealthHandler.live(metrics));
    get(router, "/health/ready").handler(HealthHandler.ready(shared.readiness, shared.gate, metrics));
    if (shared.metricsHandler != null) {
      get(router, "/metrics").handler(shared.metricsHandler);
    }
    get(router, "/openapi.yaml").handler(OpenApiHandler.create(openApi));

    router.route("/v1/*")
        .handler(RequestIdHandler.create(metrics))
        .handler(AuthHandler.create(shared.auth, metrics))
        .handler(AdmissionHandler.create(vertx, shared.gate, http.requestTimeout(), metrics));
    BodyHandler body = BodyHandler.create(false).setBodyLimit(http.bodyLimitBytes());
    JsonBody json = JsonBody.create(metrics);
    jsonPost(router, "/v1/retrieve", json, body, RetrieveHandler.create(service, metrics));
    router.get("/v1/retrieve/stream").handler(StreamHandler.create(service, metrics));
    jsonPost(router, "/v1/context", json, body, ContextHandler.create(service, metrics));
    jsonPost(router, "/v1/retrieve/batch", json, body, BatchHandler.create(service, metrics));
    get(router, "/v1/facets").handler(FacetsHandler.create(service, metrics));
    get(router, "/v1/collections").handler(CollectionsHandler.create(service, metrics));
    get(router, "/docs").handler(new ApiDocsPage(vertx));

    router.route().handler(StaticHandler.create("webroot").setCachingEnabled(true));
    router.route().handler(NotFoundHandler.create(metrics));
    return router;
  }

  /**
   * GET, and HEAD: the same status and headers without the body, which vert.x leaves out of the
   * answer to a HEAD request (RFC 9110 section 9.3.2; monitors and load balancers send it).
   */
  private static Route get(Router router, String path) {
    return router.get(path).method(HttpMethod.HEAD);
  }

  /**
   * POST with a JSON body. The media type is checked on a route of its own, first: vert.x runs a
   * route's BodyHandler before the other handlers of that route.
   */
  private static void jsonPost(Router router, String path, JsonBody json, BodyHandler body,
      Handler<RoutingContext> action) {
    router.post(path).handler(json);
    router.post(path).handler(body).handler(action);
  }

  private static CorsHandler cors(List<String> origins) {
    CorsHandler cors = CorsHandler.create();
    if (!origins.contains("*")) {
      cors.addOrigins(origins);
    }
    return cors
        .allowedMethods(Set.of(HttpMethod.GET, HttpMethod.POST, HttpMethod.OPTIONS))
        .allowedHeaders(Set.of("Authorization", "X-API-Key", "Content-Type", "Accept", "Last-Event-ID",
            RequestIdHandler.HEADER))
        .exposedHeaders(Set.of("Retry-After", "WWW-Authenticate", RequestIdHandler.HEADER, TraceHandler.TRACEPARENT))
        .maxAgeSeconds(600);
  }
}
