package dev.ragretrieval.observability;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.metrics.MetricsOptions;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.core.spi.metrics.ClientMetrics;
import io.vertx.core.spi.metrics.DatagramSocketMetrics;
import io.vertx.core.spi.metrics.EventBusMetrics;
import io.vertx.core.spi.metrics.HttpClientMetrics;
import io.vertx.core.spi.metrics.HttpServerMetrics;
import io.vertx.core.spi.metrics.PoolMetrics;
import io.vertx.core.spi.metrics.TCPMetrics;
import io.vertx.core.spi.metrics.VertxMetrics;
import io.vertx.micrometer.MicrometerMetricsFactory;

/**
 * vertx-micrometer's metrics, except that every HTTP server counts into one {@link HttpServerMeters},
 * which keeps its meters instead of looking them up on each request.
 */
final class ServiceMetricsFactory implements VertxMetricsFactory {

  private final MicrometerMetricsFactory micrometer;
  private final MeterRegistry registry;

  ServiceMetricsFactory(MeterRegistry registry) {
    this.micrometer = new MicrometerMetricsFactory(registry);
    this.registry = registry;
  }

  @Override
  public VertxMetrics metrics(VertxOptions options) {
    return new WithHttpServerMeters(micrometer.metrics(options), new HttpServerMeters(registry));
  }

  @Override
  public MetricsOptions newOptions() {
    return micrometer.newOptions();
  }

  @Override
  public MetricsOptions newOptions(MetricsOptions options) {
    return micrometer.newOptions(options);
  }

  @Override
  public MetricsOptions newOptions(JsonObject json) {
    return micrometer.newOptions(json);
  }

  private record WithHttpServerMeters(VertxMetrics micrometer, HttpServerMeters httpServer) implements VertxMetrics {

    @Override
    public HttpServerMetrics<?, ?, ?> createHttpServerMetrics(HttpServerOptions options, SocketAddress localAddress) {
      return httpServer;
    }

    @Override
    public EventBusMetrics<?> createEventBusMetrics() {
      return micrometer.createEventBusMetrics();
    }

    @Override
    public ClientMetrics<?, ?, ?> createClientMetrics(SocketAddress remoteAddress, String type, String namespace) {
      return micrometer.createClientMetrics(remoteAddress, type, namespace);
    }

    @Override
    public HttpClientMetrics<?, ?, ?> createHttpClientMetrics(HttpClientOptions options) {
      return micrometer.createHttpClientMetrics(options);
    }

    @Override
    public TCPMetrics<?> createNetServerMetrics(NetServerOptions options, SocketAddress localAddress) {
      return micrometer.createNetServerMetrics(options, localAddress);
    }

    @Override
    public TCPMetrics<?> createNetClientMetrics(NetClientOptions options) {
      return micrometer.createNetClientMetrics(options);
    }

    @Override
    public DatagramSocketMetrics createDatagramSocketMetrics(DatagramSocketOptions options) {
      return micrometer.createDatagramSocketMetrics(options);
    }

    @Override
    public PoolMetrics<?, ?> createPoolMetrics(String poolType, String poolName, int maxPoolSize) {
      return micrometer.createPoolMetrics(poolType, poolName, maxPoolSize);
    }

    @Override
    public void vertxCreated(Vertx vertx) {
      micrometer.vertxCreated(vertx);
    }

    @Override
    public boolean isMetricsEnabled() {
      return micrometer.isMetricsEnabled();
    }

    @Override
    public void close() {
      micrometer.close();
    }
  }
}
