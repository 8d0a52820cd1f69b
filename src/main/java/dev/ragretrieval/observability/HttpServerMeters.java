package dev.ragretrieval.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.metrics.HttpServerMetrics;
import io.vertx.core.spi.observability.HttpRequest;
import io.vertx.core.spi.observability.HttpResponse;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Vert.x's HTTP server meters ({@code vertx_http_server_*}): the series, labels and descriptions
 * that vertx-micrometer writes with the service's labels (route, code, method), but each meter is
 * looked up once and kept. vertx-micrometer merges tags and asks the registry for a meter five
 * times a request; a profile of new questions put that at 5% of the event loops' samples.
 *
 * <p>One instance serves every HTTP server of a Vertx (one per event loop, plus the management
 * port): a gauge registers its number once, so all servers must count into the same one.
 */
final class HttpServerMeters implements HttpServerMetrics<HttpServerMeters.Exchange, Void, Object> {

  private static final String PREFIX = "vertx.http.server.";
  private static final Object CONNECTION = new Object();

  private final MeterRegistry registry;
  private final LongAdder connections = new LongAdder();
  private final Counter bytesRead;
  private final Counter bytesWritten;
  private final ConcurrentMap<HttpMethod, MethodMeters> byMethod = new ConcurrentHashMap<>();

  HttpServerMeters(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder(PREFIX + "active.connections", connections, LongAdder::doubleValue)
        .description("Number of opened connections to the server")
        .register(registry);
    bytesRead = Counter.builder(PREFIX + "bytes.read")
        .description("Number of bytes received by the server")
        .register(registry);
    bytesWritten = Counter.builder(PREFIX + "bytes.written")
        .description("Number of bytes sent by the server")
        .register(registry);
  }

  @Override
  public Object connected(SocketAddress remoteAddress, String remoteName) {
    connections.increment();
    return CONNECTION;
  }

  @Override
  public void disconnected(Object connection, SocketAddress remoteAddress) {
    connections.decrement();
  }

  @Override
  public void bytesRead(Object connection, SocketAddress remoteAddress, long numberOfBytes) {
    bytesRead.increment(numberOfBytes);
  }

  @Override
  public void bytesWritten(Object connection, SocketAddress remoteAddress, long numberOfBytes) {
    bytesWritten.increment(numberOfBytes);
  }

  @Override
  public void exceptionOccurred(Object connection, SocketAddress remoteAddress, Throwable t) {
    // rare, so looked up each time: like vertx-micrometer, the series appears with the first error
    Counter.builder(PREFIX + "errors").description("Number of errors").register(registry).increment();
  }

  @Override
  public Exchange requestBegin(Object connection, HttpRequest request) {
    return begin(request.method());
  }

  @Override
  public Exchange responsePushed(Object connection, HttpMethod method, String uri, HttpResponse response) {
    return begin(method);
  }

  private Exchange begin(HttpMethod method) {
    MethodMeters meters = byMethod.get(method);
    if (meters == null) {
      meters = byMethod.computeIfAbsent(method, this::methodMeters);
    }
    meters.active.increment();
    return new Exchange(meters, System.nanoTime());
  }

  @Override
  public void requestRouted(Exchange exchange, String route) {
    if (route != null) {
      exchange.route = exchange.route.then(route);
    }
  }

  @Override
  public void requestEnd(Exchange exchange, HttpRequest request, long bytesRead) {
    exchange.meters.requestBytes.record(bytesRead);
    exchange.requestEnded = true;
    if (!exchange.reset && exchange.responseEnded) {
      exchange.meters.active.decrement();
    }
  }

  @Override
  public void requestReset(Exchange exchange) {
    Counter.builder(PREFIX + "request.resets")
        .description("Number of request resets")
        .tag("method", exchange.route.method)
        .register(registry)
        .increment();
    exchange.meters.active.decrement();
    exchange.reset = true;
  }

  @Override
  public void responseEnd(Exchange exchange, HttpResponse response, long bytesWritten) {
    OutcomeMeters meters = exchange.route.meters(response.statusCode());
    meters.requests.increment();
    meters.time.record(System.nanoTime() - exchange.startNanos, TimeUnit.NANOSECONDS);
    meters.responseBytes.record(bytesWritten);
    exchange.responseEnded = true;
    if (!exchange.reset && exchange.requestEnded) {
      exchange.meters.active.decrement();
    }
  }

  private MethodMeters methodMeters(HttpMethod method) {
    String name = method.toString();
    LongAdder active = new LongAdder();
    Gauge.builder(PREFIX + "active.requests", active, LongAdder::doubleValue)
        .description("Number of requests being processed")
        .tag("method", name)
        .register(registry);
    return new MethodMeters(active,
        DistributionSummary.builder(PREFIX + "request.bytes")
            .description("Size of requests in bytes")
            .tag("method", name)
            .register(registry),
        new Route(name, ""));
  }

  /** One request on its way: touched only by the connection's event loop. */
  static final class Exchange {
    final MethodMeters meters;
    final long startNanos;
    Route route;
    boolean requestEnded;
    boolean responseEnded;
    boolean reset;

    Exchange(MethodMeters meters, long startNanos) {
      this.meters = meters;
      this.startNanos = startNanos;
      this.route = meters.unrouted;
    }
  }

  private record MethodMeters(LongAdder active, DistributionSummary requestBytes, Route unrouted) {
  }

  /**
   * A method and the routes a request has taken so far, with the response meters of that label by
   * status code. A request steps from node to node by the routes' names, which vert.x-web passes
   * as the same strings each time, so a step is one look-up with a kept hash and nothing is joined
   * or allocated per request.
   */
  private final class Route {
    private static final int STATUS_CODES = 600;

    final String method;
    /** vertx-micrometer's label: the names of the routes that handled the request, joined by '>'. */
    final String label;
    private final ConcurrentMap<String, Route> next = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<OutcomeMeters> byStatus = new AtomicReferenceArray<>(STATUS_CODES);

    Route(String method, String label) {
      this.method = method;
      this.label = label;
    }

    Route then(String route) {
      Route after = next.get(route);
      return after != null ? after
          : next.computeIfAbsent(route, name -> new Route(method, label.isEmpty() ? name : label + '>' + name));
    }

    OutcomeMeters meters(int status) {
      if (status < 0 || status >= STATUS_CODES) {
        return register(status); // not a status vert.x sends: asked of the registry, which keeps it
      }
      OutcomeMeters meters = byStatus.get(status);
      if (meters == null) {
        // two loops may both register: the registry gives both the same meters
        meters = register(status);
        byStatus.set(status, meters);
      }
      return meters;
    }

    private OutcomeMeters register(int status) {
      String code = String.valueOf(status);
      return new OutcomeMeters(
          Counter.builder(PREFIX + "requests")
              .description("Number of processed requests")
              .tags("method", method, "route", label, "code", code)
              .register(registry),
          Timer.builder(PREFIX + "response.time")
              .description("Request processing time")
              .tags("method", method, "route", label, "code", code)
              .register(registry),
          DistributionSummary.builder(PREFIX + "response.bytes")
              .description("Size of responses in bytes")
              .tags("method", method, "route", label, "code", code)
              .register(registry));
    }
  }

  private record OutcomeMeters(Counter requests, Timer time, DistributionSummary responseBytes) {
  }
}
