package dev.ragretrieval.http;

import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * The probes: {@code /health/live} answers UP while the process serves at all;
 * {@code /health/ready} asks {@link Readiness}, and is DOWN once a shutdown has begun.
 */
final class HealthHandler {

  private HealthHandler() {}

  static Handler<RoutingContext> live(RagMetrics metrics) {
    return ctx -> Exchange.of(ctx, metrics).json(new JsonObject().put("status", "UP"));
  }

  static Handler<RoutingContext> ready(Readiness readiness, RequestGate gate, RagMetrics metrics) {
    return ctx -> {
      Future<Readiness.Report> report = gate.draining()
          ? Future.succeededFuture(Readiness.shuttingDown())
          : readiness.check();
      // a shutdown that began while the probe ran wins
      report.map(r -> gate.draining() ? Readiness.shuttingDown() : r)
          .onSuccess(r -> Exchange.of(ctx, metrics).json(r.up() ? 200 : 503, r.toJson()));
    };
  }
}
