package dev.ragretrieval.http;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.RetrievalService;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;

/**
 * What every {@link HttpVerticle} instance shares, built once per process: the retrieval service,
 * readiness, the admission gate, metrics and the connection limits. Each part is safe to use from
 * several event loops at once; each instance keeps its own router, server, request timers and pages.
 */
public final class HttpShared {

  final AppConfig config;
  final RetrievalService service;
  final Readiness readiness;
  final RequestGate gate;
  final RagMetrics metrics;
  /** May be null: /metrics is then 404. */
  final Handler<RoutingContext> metricsHandler;
  final ApiKeyAuth auth;
  final ConnectionGuard connections;

  private HttpShared(Vertx vertx, AppConfig config, RetrievalService service, Readiness readiness, RequestGate gate,
      RagMetrics metrics, Handler<RoutingContext> metricsHandler) {
    this.config = config;
    this.service = service;
    this.readiness = readiness;
    this.gate = gate;
    this.metrics = metrics;
    this.metricsHandler = metricsHandler;
    this.auth = new ApiKeyAuth(config.security().apiKeys());
    this.connections = new ConnectionGuard(vertx, config.http().edge(), metrics);
  }

  /** {@code metricsHandler} may be null: /metrics is then 404. */
  public static HttpShared create(Vertx vertx, AppConfig config, RetrievalService service, Readiness readiness,
      RequestGate gate, RagMetrics metrics, Handler<RoutingContext> metricsHandler) {
    return new HttpShared(vertx, config, service, readiness, gate, metrics, metricsHandler);
  }
}
