package dev.ragretrieval.http;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.observability.RequestLog;
import dev.ragretrieval.retrieval.RequestParser;
import dev.ragretrieval.retrieval.AssembledContext;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievedChunk;
import dev.ragretrieval.retrieval.RetrievalRequest;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.retrieval.RetrievalService;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.MIMEHeader;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.CorsHandler;
import io.vertx.ext.web.handler.StaticHandler;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * The HTTP face of the service (docs/API.md sections 4 to 8). Handlers only compose the
 * {@link RetrievalService} steps and write the answer through an {@link Exchange}.
 */
public final class HttpVerticle extends VerticleBase {

  private static final String DEADLINE = "rag.deadline";
  private static final Pattern CONTROL_CHARS = Pattern.compile("\\p{Cntrl}");
  private static final String REQUEST_ID = "X-Request-Id";
  private static final Pattern SAFE_REQUEST_ID = Pattern.compile("[A-Za-z0-9._:/+=-]{1,128}");

  /** The API's paths and their methods: labels for metrics and the answer to a wrong method. */
  private static final Map<String, HttpMethod> API_ROUTES = Map.of(
      "/v1/retrieve", HttpMethod.POST,
      "/v1/retrieve/stream", HttpMethod.GET,
      "/v1/context", HttpMethod.POST,
      "/v1/retrieve/batch", HttpMethod.POST,
      "/v1/facets", HttpMethod.GET,
      "/v1/collections", HttpMethod.GET,
      "/health/live", HttpMethod.GET,
      "/health/ready", HttpMethod.GET,
      "/metrics", HttpMethod.GET,
      "/openapi.yaml", HttpMethod.GET);

  private final AppConfig config;
  private final RetrievalService service;
  private final RequestParser parser;
  private final Readiness readiness;
  private final RequestGate gate;
  private final Handler<RoutingContext> metricsHandler;
  private final RagMetrics metrics;
  private final ApiKeyAuth auth;
  private HttpServer server;
  private HttpEdge edge;
  /** The deadlines of this event loop's requests in flight, one timer for all. */
  private RequestDeadlines deadlines;
  private Buffer openApi;

  /** {@code metricsHandler} may be null: /metrics is then 404. */
  public HttpVerticle(AppConfig config, RetrievalService service, Readiness readiness, RequestGate gate,
      RagMetrics metrics, Handler<RoutingContext> metricsHandler) {
    this.metrics = metrics;
    this.config = config;
    this.service = service;
    this.parser = service.parser();
    this.readiness = readiness;
    this.gate = gate;
    this.metricsHandler = metricsHandler;
    this.auth = new ApiKeyAuth(config.security().apiKeys());
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(() -> classpathResource("openapi.yaml"))
        .compose(spec -> {
          openApi = spec;
          deadlines = new RequestDeadlines(vertx, config.http().requestTimeout().toMillis());
          edge = new HttpEdge(vertx, config.http(), metrics);
          server = vertx.createHttpServer(edge.options());
          return edge.install(server, router()).listen();
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

  private Router router() {
    Router router = Router.router(vertx);
    BodyHandler body = BodyHandler.create(false).setBodyLimit(config.http().bodyLimitBytes());

    router.route().handler(edge::track);
    router.route().failureHandler(this::failed);
    router.route().handler(cors());

    router.get("/health/live").handler(this::live);
    router.get("/health/ready").handler(this::ready);
    router.get("/metrics").handler(this::metrics);
    router.get("/openapi.yaml").handler(this::openApi);

    router.route("/v1/*").handler(this::requestId).handler(this::authenticate).handler(this::admit);
    jsonPost(router, "/v1/retrieve", body, this::retrieve);
    router.get("/v1/retrieve/stream").handler(this::retrieveStream);
    jsonPost(router, "/v1/context", body, this::context);
    jsonPost(router, "/v1/retrieve/batch", body, this::batch);
    router.get("/v1/facets").handler(this::facets);
    router.get("/v1/collections").handler(ctx -> answer(exchange(ctx),
        service.collections(deadline(ctx)).map(ResultJson::collections)));
    router.get("/docs").handler(new ApiDocsPage(vertx));

    router.route().handler(StaticHandler.create("webroot").setCachingEnabled(true));
    router.route().handler(this::notFound);
    return router;
  }

  /** POST with a JSON body: media type checked first (vert.x runs body handlers before user handlers on one route). */
  private void jsonPost(Router router, String path, BodyHandler body, Handler<RoutingContext> action) {
    router.post(path).handler(this::requireJson);
    router.post(path).handler(body).handler(action);
  }

  // --- cross-cutting ---

  private CorsHandler cors() {
    CorsHandler cors = CorsHandler.create();
    List<String> origins = config.http().corsOrigins();
    if (!origins.contains("*")) {
      cors.addOrigins(origins);
    }
    return cors
        .allowedMethods(Set.of(HttpMethod.GET, HttpMethod.POST, HttpMethod.OPTIONS))
        .allowedHeaders(Set.of("Authorization", "X-API-Key", "Content-Type", "Accept", "Last-Event-ID", REQUEST_ID))
        .exposedHeaders(Set.of("Retry-After", "WWW-Authenticate", REQUEST_ID))
        .maxAgeSeconds(600);
  }

  /**
   * The caller's X-Request-Id (ingress-nginx sets one) or a new one, on the response and on the
   * request log line. A value that is too long or has odd characters is replaced, not logged.
   */
  private void requestId(RoutingContext ctx) {
    String given = ctx.request().getHeader(REQUEST_ID);
    String id = given != null && SAFE_REQUEST_ID.matcher(given).matches() ? given : Ids.random();
    exchange(ctx).requestId(id);
    ctx.response().putHeader(REQUEST_ID, id);
    ctx.next();
  }

  private void authenticate(RoutingContext ctx) {
    if (!auth.required() || auth.accepts(ApiKeyAuth.presented(
        ctx.request().getHeader(HttpHeaders.AUTHORIZATION), ctx.request().getHeader("X-API-Key")))) {
      ctx.next();
      return;
    }
    exchange(ctx).fail(new ServiceException(ErrorCode.UNAUTHORIZED,
        "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"));
  }

  /** Admission, the request deadline and the request log; released exactly once when the response is over. */
  private void admit(RoutingContext ctx) {
    Exchange exchange = exchange(ctx);
    RequestGate.Admission admission = gate.enter();
    if (admission != RequestGate.Admission.ADMITTED) {
      exchange.fail(new ServiceException(ErrorCode.OVERLOADED, admission == RequestGate.Admission.DRAINING
          ? "the service is shutting down; retry on another instance"
          : "too many requests in flight; retry shortly", null, 1));
      RequestLog.log(exchange.logEntry());
      return;
    }
    Deadline deadline = Deadline.in(config.http().requestTimeout());
    ctx.put(DEADLINE, deadline);
    Runnable forgetDeadline = deadlines.admit(deadline, () -> exchange.fail(new ServiceException(ErrorCode.TIMEOUT,
        "the request took longer than " + config.http().requestTimeout().toMillis() + " ms")));
    Runnable forgetExpiry = gate.onGraceExpiry(vertx.getOrCreateContext(), () -> exchange.fail(
        new ServiceException(ErrorCode.OVERLOADED, "the service is shutting down; retry on another instance", null, 1)));
    AtomicBoolean released = new AtomicBoolean();
    ctx.addEndHandler(done -> {
      if (released.compareAndSet(false, true)) {
        forgetDeadline.run();
        forgetExpiry.run();
        gate.leave();
        RequestLog.log(exchange.logEntry());
      }
    });
    ctx.next();
  }

  private void requireJson(RoutingContext ctx) {
    MIMEHeader type = ctx.parsedHeaders().contentType();
    String value = type == null ? "" : type.value().toLowerCase(Locale.ROOT);
    if (value.equals("application/json") || (value.startsWith("application/") && value.endsWith("+json"))) {
      ctx.next();
      return;
    }
    exchange(ctx).fail(new ServiceException(ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        "the request body must be JSON (Content-Type: application/json)"));
  }

  // --- /v1 ---

  private void retrieve(RoutingContext ctx) {
    Exchange exchange = exchange(ctx).queryId(Ids.random());
    StreamFormat format = StreamFormat.negotiate(ctx);
    jsonBody(ctx)
        .compose(service::validate)
        .onSuccess(request -> {
          exchange.query(request.query());
          if (format == StreamFormat.JSON) {
            service.retrieve(request, exchange.queryId(), deadline(ctx))
                .map(exchange::record)
                .map(result -> ResultJson.encode(json -> ResultJson.result(json, result)))
                .onSuccess(exchange::json)
                .onFailure(exchange::fail);
          } else {
            stream(exchange, format, request, deadline(ctx));
          }
        })
        .onFailure(exchange::fail);
  }

  private void retrieveStream(RoutingContext ctx) {
    Exchange exchange = exchange(ctx).queryId(Ids.random());
    RetrievalRequest request;
    try {
      request = parser.parse(ctx.queryParams());
    } catch (ServiceException e) {
      exchange.fail(e);
      return;
    }
    exchange.query(request.query());
    stream(exchange, StreamFormat.SSE, request, deadline(ctx));
  }

  /**
   * meta -> chunk per result -> context (when asked) -> done; a failure after meta is an error event.
   * The search is planned first, so meta tells the search mode really used; a failure there is
   * still an ordinary error response. Two writes: meta at once, everything else and the end of the
   * response together once the search has answered.
   */
  private void stream(Exchange exchange, StreamFormat format, RetrievalRequest unplanned, Deadline deadline) {
    service.plan(unplanned, deadline)
        .onSuccess(request -> streamPlanned(exchange, format, request, deadline))
        .onFailure(exchange::fail);
  }

  private void streamPlanned(Exchange exchange, StreamFormat format, RetrievalRequest request, Deadline deadline) {
    exchange.startStream(format);
    Exchange.Events meta = exchange.events().add("meta", json -> ResultJson.meta(json, exchange.queryId(), request));
    // meta goes out at once while the question is embedded; a question whose vector is cached is
    // answered after one search, and its meta goes out with the rest of the stream, in one write
    if (!service.queryVectorCached(request)) {
      meta.send();
    }
    service.retrieve(request, exchange.queryId(), deadline)
        .map(exchange::record)
        .onSuccess(result -> {
          Exchange.Events events = exchange.events();
          for (RetrievedChunk chunk : result.results()) {
            events.add("chunk", json -> ResultJson.chunk(json, chunk));
          }
          if (request.includeContext()) {
            AssembledContext context = service.assemble(result);
            events.add("context", json -> ResultJson.context(json, context));
          }
          events.add("done", json -> ResultJson.done(json, result)).sendAndEnd();
        })
        .onFailure(exchange::fail);
  }

  private void context(RoutingContext ctx) {
    Exchange exchange = exchange(ctx).queryId(Ids.random());
    jsonBody(ctx)
        .compose(service::validate)
        .onSuccess(request -> {
          exchange.query(request.query());
          service.retrieve(request, exchange.queryId(), deadline(ctx))
              .map(exchange::record)
              .map(service::assemble)
              .map(context -> ResultJson.encode(json -> ResultJson.context(json, context)))
              .onSuccess(exchange::json)
              .onFailure(exchange::fail);
        })
        .onFailure(exchange::fail);
  }

  private void batch(RoutingContext ctx) {
    Exchange exchange = exchange(ctx);
    long started = System.nanoTime();
    jsonBody(ctx)
        .map(parser::parseBatch)
        .onSuccess(slots -> {
          List<String> queryIds = slots.stream().map(s -> Ids.random()).toList();
          List<Future<RetrievalResult>> results = service.retrieveBatch(slots, queryIds, deadline(ctx));
          StreamFormat format = StreamFormat.negotiate(ctx);
          if (format == StreamFormat.JSON) {
            answerBatch(exchange, results, queryIds, started);
          } else {
            streamBatch(exchange, format, results, queryIds, started);
          }
        })
        .onFailure(exchange::fail);
  }

  /** All slots in input order, once every one has finished. */
  private void answerBatch(Exchange exchange, List<Future<RetrievalResult>> results, List<String> queryIds,
      long started) {
    Future.join(results).onComplete(all -> {
      JsonArray answers = new JsonArray();
      for (int i = 0; i < results.size(); i++) {
        answers.add(slotJson(results.get(i), queryIds.get(i)));
      }
      exchange.json(new JsonObject()
          .put("results", answers)
          .put("execution_time_ms", ResultJson.ms((System.nanoTime() - started) / 1e6)));
    });
  }

  /** One event per slot as it completes, then done. */
  private void streamBatch(Exchange exchange, StreamFormat format, List<Future<RetrievalResult>> results,
      List<String> queryIds, long started) {
    exchange.startStream(format);
    for (int i = 0; i < results.size(); i++) {
      int index = i;
      results.get(i).onComplete(slot -> exchange.event(slot.succeeded() ? "result" : "error", index,
          slotData(results.get(index), queryIds.get(index))));
    }
    Future.join(results).onComplete(all -> {
      long failed = results.stream().filter(Future::failed).count();
      exchange.event("done", new JsonObject()
          .put("count", results.size())
          .put("succeeded", results.size() - failed)
          .put("failed", failed)
          .put("execution_time_ms", ResultJson.ms((System.nanoTime() - started) / 1e6)));
      exchange.end();
    });
  }

  private static JsonObject slotJson(Future<RetrievalResult> slot, String queryId) {
    return slot.succeeded() ? ResultJson.result(slot.result())
        : ResultJson.error(ServiceException.from(slot.cause()), queryId);
  }

  private static JsonObject slotData(Future<RetrievalResult> slot, String queryId) {
    return slot.succeeded() ? ResultJson.result(slot.result())
        : ResultJson.errorObject(ServiceException.from(slot.cause()), queryId);
  }

  private void facets(RoutingContext ctx) {
    Exchange exchange = exchange(ctx);
    String key;
    String collection;
    int limit;
    try {
      key = parser.filterKey(ctx.request().getParam("key"));
      collection = parser.collection(ctx.request().getParam("collection"));
      limit = facetLimit(ctx.request().getParam("limit"));
    } catch (ServiceException e) {
      exchange.fail(e);
      return;
    }
    answer(exchange, service.facets(collection, key, limit, deadline(ctx)).map(counts -> ResultJson.facets(key, collection, counts)));
  }

  private static int facetLimit(String raw) {
    if (raw == null) {
      return 100;
    }
    try {
      int limit = Integer.parseInt(raw.trim());
      if (limit >= 1 && limit <= 1000) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // falls through to the same answer as out of range
    }
    throw new ServiceException(ErrorCode.INVALID_REQUEST, "'limit' must be an integer between 1 and 1000",
        new JsonObject().put("field", "limit"));
  }

  // --- operations ---

  private void live(RoutingContext ctx) {
    exchange(ctx).json(new JsonObject().put("status", "UP"));
  }

  private void ready(RoutingContext ctx) {
    Future<Readiness.Report> report = gate.draining()
        ? Future.succeededFuture(Readiness.shuttingDown())
        : readiness.check();
    // a shutdown that began while the probe ran wins
    report.map(r -> gate.draining() ? Readiness.shuttingDown() : r)
        .onSuccess(r -> exchange(ctx).json(r.up() ? 200 : 503, r.toJson()));
  }

  private void metrics(RoutingContext ctx) {
    if (metricsHandler == null) {
      ctx.next();
    } else {
      metricsHandler.handle(ctx);
    }
  }

  private void openApi(RoutingContext ctx) {
    if (openApi == null) {
      ctx.next();
      return;
    }
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/yaml").end(openApi);
  }

  /** 405 with the allowed method for a known path, 404 for anything else. */
  private void notFound(RoutingContext ctx) {
    HttpMethod allowed = API_ROUTES.get(ctx.normalizedPath());
    if (allowed != null && !allowed.equals(ctx.request().method())) {
      ctx.response().putHeader(HttpHeaders.ALLOW, allowed.name());
      exchange(ctx).fail(new ServiceException(ErrorCode.INVALID_REQUEST,
          ctx.request().method().name() + " is not supported here; use " + allowed.name(),
          new JsonObject().put("allow", allowed.name())), 405);
      return;
    }
    exchange(ctx).fail(new ServiceException(ErrorCode.NOT_FOUND, "no such path: " + safePath(ctx)));
  }

  /** Failures raised by vert.x handlers (body limit, CORS) or thrown by ours. */
  private void failed(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    int status = ctx.statusCode();
    if (failure instanceof ServiceException e) {
      exchange(ctx).fail(e);
    } else if (status == 413) {
      exchange(ctx).fail(new ServiceException(ErrorCode.PAYLOAD_TOO_LARGE,
          "the request body is over the limit of " + config.http().bodyLimitBytes() + " bytes",
          new JsonObject().put("limit_bytes", config.http().bodyLimitBytes())));
    } else if (status == 403) {
      exchange(ctx).fail(new ServiceException(ErrorCode.INVALID_REQUEST, "this origin is not allowed"), 403);
    } else if (status == 400) {
      exchange(ctx).fail(new ServiceException(ErrorCode.INVALID_REQUEST, "the request is malformed"));
    } else if (status == 404) {
      notFound(ctx);
    } else {
      // INTERNAL: the exchange logs it with its stack trace and the request id
      exchange(ctx).fail(ServiceException.from(failure));
    }
  }

  // --- helpers ---

  private Exchange exchange(RoutingContext ctx) {
    return Exchange.of(ctx, routeLabel(ctx), metrics);
  }

  /** A route template for labels and logs: raw paths would make unbounded label values. */
  private static String routeLabel(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    return API_ROUTES.containsKey(path) ? path : "unmatched";
  }

  /** Set by {@link #admit} on every /v1 route; the fallback is the same configured timeout. */
  private Deadline deadline(RoutingContext ctx) {
    Deadline deadline = ctx.get(DEADLINE);
    return deadline == null ? Deadline.in(config.http().requestTimeout()) : deadline;
  }

  private static Future<JsonObject> jsonBody(RoutingContext ctx) {
    Buffer buffer = ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      return invalidBody("the request body is empty; send a JSON object");
    }
    if (!Utf8.valid(buffer)) {
      return invalidBody("the request body is not valid UTF-8");
    }
    Object value;
    try {
      value = Json.decodeValue(buffer);
    } catch (DecodeException e) {
      return invalidBody("the request body is not valid JSON");
    }
    if (!Utf8.wellFormed(value)) {
      return invalidBody("the request body is not valid UTF-8: it escapes a lone surrogate (\\uD800-\\uDFFF)");
    }
    return value instanceof JsonObject json ? Future.succeededFuture(json)
        : invalidBody("the request body must be a JSON object");
  }

  private static Future<JsonObject> invalidBody(String message) {
    return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, message, new JsonObject().put("field", "body")));
  }

  private static void answer(Exchange exchange, Future<JsonObject> body) {
    body.onSuccess(exchange::json).onFailure(exchange::fail);
  }

  /** The path as the client sent it, cut and stripped of control characters before it is echoed. */
  private static String safePath(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    path = path.length() > 200 ? path.substring(0, 200) + "..." : path;
    return CONTROL_CHARS.matcher(path).replaceAll("");
  }

  private static Buffer classpathResource(String name) throws IOException {
    try (InputStream in = HttpVerticle.class.getClassLoader().getResourceAsStream(name)) {
      return in == null ? null : Buffer.buffer(in.readAllBytes());
    }
  }
}
