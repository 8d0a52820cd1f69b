package dev.ragretrieval.observability;

import static dev.ragretrieval.testing.Await.await;
import static dev.ragretrieval.testing.Await.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpServerMeters} against the meters it replaces: vertx-micrometer's own HTTP server
 * metrics, with the labels the service used to ask it for, serving the same requests.
 */
class HttpServerMetersTest {

  private final List<Vertx> started = new ArrayList<>();
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @AfterEach
  void stop() {
    started.forEach(vertx -> await(vertx.close()));
  }

  @Test
  @DisplayName("the service's HTTP server meters write the series, labels, help texts and counts that vertx-micrometer wrote")
  void sameSeriesAsVertxMicrometer() throws Exception {
    PrometheusMeterRegistry stock = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    stock.config().meterFilter(Observability.HTTP_LATENCY_BUCKETS);
    MicrometerMetricsOptions options = new MicrometerMetricsOptions()
        .setEnabled(true)
        .setRegistryName("stock-" + UUID.randomUUID())
        .addDisabledMetricsCategory(MetricsDomain.NAMED_POOLS)
        .addLabels(Label.HTTP_ROUTE, Label.HTTP_CODE, Label.HTTP_METHOD);
    Vertx stockVertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(options))
        .withMetrics(new MicrometerMetricsFactory(stock))
        .build();
    started.add(stockVertx);
    Observability observability = Observability.create();
    started.add(observability.vertx());

    for (PrometheusMeterRegistry registry : List.of(stock, observability.registry())) {
      Vertx vertx = registry == stock ? stockVertx : observability.vertx();
      int port = serve(vertx);
      send(port, "GET", "/v1/items/alpha", 200);
      send(port, "GET", "/v1/items/beta", 200);
      send(port, "POST", "/v1/echo", 200);
      send(port, "GET", "/v1/nested/x", 200);
      send(port, "GET", "/v1/broken", 500);
      send(port, "GET", "/nowhere", 404);
      // the server counts a response after its last write, which may be after the client has read it
      eventually(() -> sum(registry.scrape(), "vertx_http_server_requests_total") == 6);
    }

    TreeMap<String, String> expected = comparable(stock.scrape());
    TreeMap<String, String> actual = comparable(observability.registry().scrape());
    // entry by entry, so that a failure names the series that differ
    assertThat(actual.entrySet()).containsExactlyInAnyOrderElementsOf(expected.entrySet());
    // and the comparison is not between two empty scrapes
    assertThat(actual)
        .containsEntry("vertx_http_server_requests_total{code=\"200\",method=\"GET\",route=\"/v1/items/:id\"}", "2.0")
        .containsEntry("vertx_http_server_requests_total{code=\"200\",method=\"GET\",route=\"/v1/nested/>/v1/nested/:id\"}", "1.0")
        .containsEntry("vertx_http_server_requests_total{code=\"404\",method=\"GET\",route=\"\"}", "1.0")
        .containsEntry("vertx_http_server_response_time_seconds_bucket{code=\"500\",method=\"GET\",route=\"/v1/broken\",le=\"+Inf\"}", "1")
        .containsEntry("vertx_http_server_request_bytes_count{method=\"POST\"}", "1")
        .containsEntry("vertx_http_server_request_bytes_sum{method=\"POST\"}", "2048.0")
        .containsEntry("vertx_http_server_active_requests{method=\"GET\"}", "0.0")
        .containsKeys("# HELP vertx_http_server_response_bytes", "vertx_http_server_bytes_read_total",
            "vertx_http_server_active_connections");
  }

  @Test
  @DisplayName("two HTTP servers of one Vertx (one per event loop, say) count into the same series")
  void serversShareTheirMeters() throws Exception {
    Observability observability = Observability.create();
    started.add(observability.vertx());
    int first = serve(observability.vertx());
    int second = serve(observability.vertx());
    send(first, "GET", "/v1/items/alpha", 200);
    send(second, "GET", "/v1/items/beta", 200);
    send(second, "GET", "/v1/items/gamma", 200);

    String route = "{code=\"200\",method=\"GET\",route=\"/v1/items/:id\"}";
    eventually(() -> comparable(observability.registry().scrape())
        .getOrDefault("vertx_http_server_requests_total" + route, "").equals("3.0"));
    // the client keeps one connection to each server open
    assertThat(comparable(observability.registry().scrape()))
        .containsEntry("vertx_http_server_active_connections", "2.0")
        .containsEntry("vertx_http_server_response_time_seconds_count" + route, "3");
  }

  private int serve(Vertx vertx) {
    Router router = Router.router(vertx);
    router.route().handler(ctx -> ctx.next()); // a path-less filter, as the service has: no label of its own
    router.get("/v1/items/:id").handler(ctx -> ctx.response().end("item " + ctx.pathParam("id")));
    router.post("/v1/echo").handler(BodyHandler.create())
        .handler(ctx -> ctx.response().end("read " + ctx.body().length()));
    router.route("/v1/nested/*").handler(ctx -> ctx.next());
    router.get("/v1/nested/:id").handler(ctx -> ctx.response().end("nested"));
    router.get("/v1/broken").handler(ctx -> {
      throw new IllegalStateException("a handler that fails");
    });
    HttpServer server = await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1"));
    return server.actualPort();
  }

  private void send(int port, String method, String path, int status) throws Exception {
    HttpRequest.BodyPublisher body = method.equals("POST")
        ? HttpRequest.BodyPublishers.ofString("x".repeat(2048))
        : HttpRequest.BodyPublishers.noBody();
    HttpResponse<String> response = client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).method(method, body).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(status);
  }

  /**
   * The scrape's vertx_http_server_* lines as series → value. Values that depend on timing (the
   * response-time sums, maxima and finite buckets) are left out; the series themselves are kept.
   */
  private static TreeMap<String, String> comparable(String scrape) {
    TreeMap<String, String> series = new TreeMap<>();
    scrape.lines()
        .filter(line -> line.startsWith("vertx_http_server_") || line.startsWith("# HELP vertx_http_server_")
            || line.startsWith("# TYPE vertx_http_server_"))
        .forEach(line -> {
          if (line.startsWith("#")) {
            series.put(line.substring(0, line.indexOf(' ', 7)), line);
            return;
          }
          int space = line.lastIndexOf(' ');
          String key = line.substring(0, space);
          boolean timing = key.startsWith("vertx_http_server_response_time_seconds")
              && !key.startsWith("vertx_http_server_response_time_seconds_count")
              && !key.contains("le=\"+Inf\"");
          series.put(key, timing ? "(timing)" : line.substring(space + 1));
        });
    return series;
  }

  private static double sum(String scrape, String name) {
    return scrape.lines()
        .filter(line -> line.startsWith(name + "{"))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }
}
