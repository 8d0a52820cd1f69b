package dev.ragretrieval.observability;

import dev.ragretrieval.tracing.Tracing;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.PrometheusScrapingHandler;
import java.util.Arrays;
import java.util.UUID;

/**
 * Creates the Vertx instance with Micrometer metrics on one Prometheus registry that also holds
 * the service's own meters ({@link RagMetrics}), and serves that registry at /metrics.
 */
public final class Observability {

  /** Latency buckets for Vert.x's HTTP server and client timers (seconds, up to the 15 s deadline). */
  static final double[] HTTP_BUCKETS_SECONDS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30};

  static final MeterFilter HTTP_LATENCY_BUCKETS = new MeterFilter() {
    private final DistributionStatisticConfig buckets = DistributionStatisticConfig.builder()
        .serviceLevelObjectives(Arrays.stream(HTTP_BUCKETS_SECONDS).map(s -> s * 1e9).toArray())
        .build();

    @Override
    public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
      if (id.getType() == Meter.Type.TIMER && id.getName().startsWith("vertx.http.")) {
        return buckets.merge(config);
      }
      return config;
    }
  };

  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final RagMetrics metrics;

  private Observability(Vertx vertx, PrometheusMeterRegistry registry) {
    this.vertx = vertx;
    this.registry = registry;
    this.metrics = new RagMetrics(registry);
  }

  /** A Vertx with HTTP server and JVM metrics, and {@link RagMetrics} on the same registry; no tracing. */
  public static Observability create() {
    return create(Tracing.off());
  }

  /** As {@link #create()}, tracing HTTP and the event bus with {@code tracing} when it is on. */
  public static Observability create(Tracing tracing) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // before any meter exists: filters do not reach meters created earlier
    registry.config().meterFilter(HTTP_LATENCY_BUCKETS);
    MicrometerMetricsOptions metrics = new MicrometerMetricsOptions()
        .setEnabled(true)
        // vertx-micrometer keeps one backend per registry name for the whole JVM: a unique name
        // keeps a second Vertx (tests, embedded runs) from writing into the first one's registry
        .setRegistryName("rag-retrieval-" + UUID.randomUUID())
        .setJvmMetricsEnabled(true)
        .addDisabledMetricsCategory(MetricsDomain.NAMED_POOLS)
        // the upstream calls have their own meters (rag_embedding_*, rag_vector_store_*, per
        // attempt and outcome); Vert.x's client and event-bus meters repeated them, and looked
        // their meters up again on every request
        .addDisabledMetricsCategory(MetricsDomain.HTTP_CLIENT)
        .addDisabledMetricsCategory(MetricsDomain.NET_CLIENT)
        .addDisabledMetricsCategory(MetricsDomain.EVENT_BUS)
        // the HTTP server's meters are HttpServerMeters (see ServiceMetricsFactory), labelled by
        // route template, status code and method
        .addDisabledMetricsCategory(MetricsDomain.HTTP_SERVER);
    Vertx vertx = tracing.applyTo(Vertx.builder())
        // NIO, not epoll: with netty-transport-native-epoll 4.2.9 about one round in twenty of
        // "start, serve three GETs on one connection, close" left a request unanswered (none in
        // 150 rounds with NIO), so the native transport stays off until that is understood
        .with(new VertxOptions().setMetricsOptions(metrics))
        .withMetrics(new ServiceMetricsFactory(registry))
        .build();
    return new Observability(vertx, registry);
  }

  public Vertx vertx() {
    return vertx;
  }

  /** The service's own meters, on the scraped registry. */
  public RagMetrics metrics() {
    return metrics;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The /metrics handler (Prometheus text format). */
  public Handler<RoutingContext> metricsHandler() {
    return PrometheusScrapingHandler.create(registry);
  }
}
