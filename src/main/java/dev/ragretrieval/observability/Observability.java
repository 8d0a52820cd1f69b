package dev.ragretrieval.observability;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.PrometheusScrapingHandler;

/**
 * Creates the Vertx instance with Micrometer metrics on one Prometheus registry that also holds
 * the service's own meters ({@link RagMetrics}), and serves that registry at /metrics.
 */
public final class Observability {

  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;

  private Observability(Vertx vertx, PrometheusMeterRegistry registry) {
    this.vertx = vertx;
    this.registry = registry;
  }

  /** A Vertx with HTTP server/client and event-bus metrics; installs {@link RagMetrics} on the same registry. */
  public static Observability create() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MicrometerMetricsOptions metrics = new MicrometerMetricsOptions()
        .setEnabled(true)
        .setJvmMetricsEnabled(true)
        .addDisabledMetricsCategory(MetricsDomain.NAMED_POOLS)
        // labels stay bounded: route templates, never raw paths
        .addLabels(io.vertx.micrometer.Label.HTTP_ROUTE, io.vertx.micrometer.Label.HTTP_CODE,
            io.vertx.micrometer.Label.HTTP_METHOD);
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(metrics))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    RagMetrics.install(new RagMetrics(registry));
    return new Observability(vertx, registry);
  }

  public Vertx vertx() {
    return vertx;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The /metrics handler (Prometheus text format). */
  public Handler<RoutingContext> metricsHandler() {
    return PrometheusScrapingHandler.create(registry);
  }
}
