package dev.ragretrieval.http;

import static dev.ragretrieval.testing.Await.await;
import static dev.ragretrieval.testing.Await.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import io.vertx.junit5.VertxExtension;

/**
 * RAG_HTTP_INSTANCES=2: two HTTP verticles share the port, each on its own event loop, and share
 * the admission gate and the query cache. Each fresh connection goes to the next instance; the
 * /metrics handler (ours, here) answers with the event loop that served it, so a connection's
 * later requests are known to run on that event loop too.
 */
@ExtendWith(VertxExtension.class)
@DisplayName("HTTP deployed on two event loops: both serve, one gate, one cache")
class HttpInstancesTest {

  private static final int CONNECTIONS = 6;

  private final Set<String> servedBy = ConcurrentHashMap.newKeySet();
  private final Handler<RoutingContext> whoServes = ctx -> {
    servedBy.add(Thread.currentThread().getName());
    ctx.response().end(Thread.currentThread().getName());
  };
  private TestStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
  }

  private void start(Vertx vertx, Map<String, String> settings) {
    Map<String, String> all = new java.util.HashMap<>(settings);
    all.put("RAG_HTTP_INSTANCES", "2");
    all.put("RAG_SHUTDOWN_GRACE_MS", "5000");
    stack = await(TestStack.start(vertx, all, new JsonObject(), RagMetrics.detached(), whoServes));
  }

  /**
   * On each of {@link #CONNECTIONS} fresh connections: which instance it is on (via /metrics),
   * then {@code request} on the same connection.
   */
  private List<Served> onFreshConnections(Vertx vertx,
      Function<WebClient, Future<HttpResponse<Buffer>>> request) {
    List<Served> served = new ArrayList<>();
    for (int i = 0; i < CONNECTIONS; i++) {
      WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
          .setDefaultPort(stack.app.httpPort()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(1));
      try {
        String instance = await(client.get("/metrics").send()).bodyAsString();
        served.add(new Served(instance, await(request.apply(client))));
      } finally {
        client.close();
      }
    }
    return served;
  }

  private record Served(String instance, HttpResponse<Buffer> response) {}

  private static Future<HttpResponse<Buffer>> ask(WebClient client, String query) {
    return client.post("/v1/retrieve").sendJsonObject(new JsonObject().put("query", query).put("top_k", 2));
  }

  @Test
  @DisplayName("questions on fresh connections are answered by both instances")
  void bothInstancesServe(Vertx vertx) {
    start(vertx, Map.of());
    List<Served> served = onFreshConnections(vertx, client -> ask(client, "How do nodes exchange messages?"));
    assertThat(servedBy).hasSize(2).allMatch(thread -> thread.startsWith("vert.x-eventloop-thread-"));
    assertThat(served.stream().map(Served::instance).distinct()).hasSize(2);
    served.forEach(s -> {
      assertThat(s.response().statusCode()).isEqualTo(200);
      assertThat(s.response().bodyAsJsonObject().getInteger("count")).isEqualTo(2);
    });
  }

  @Test
  @DisplayName("a question cached through one instance is a cache hit on the other")
  void oneCache(Vertx vertx) {
    start(vertx, Map.of());
    List<Served> served = onFreshConnections(vertx, client -> ask(client, "What does Gazebo simulate?"));
    assertThat(served.stream().map(Served::instance).distinct()).hasSize(2);
    served.forEach(s -> assertThat(s.response().statusCode()).isEqualTo(200));
    // one embedding call for the first ask; every later one, on either instance, read the cache
    assertThat(stack.cohere.callCount()).isEqualTo(1);
  }

  @Test
  @DisplayName("RAG_MAX_IN_FLIGHT counts the requests of both instances together")
  void oneGate(Vertx vertx) {
    start(vertx, Map.of("RAG_MAX_IN_FLIGHT", "1"));
    stack.cohere.delay(Duration.ofMillis(1500));
    Future<HttpResponse<Buffer>> slow = ask(stack.client, "a slow question");
    eventually(() -> stack.app.metrics().inFlight().get() == 1);

    List<Served> refused = onFreshConnections(vertx, client -> ask(client, "another question"));
    assertThat(refused.stream().map(Served::instance).distinct()).hasSize(2);
    refused.forEach(s -> {
      assertThat(s.response().statusCode()).isEqualTo(503);
      assertThat(s.response().bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("OVERLOADED");
    });
    assertThat(await(slow).statusCode()).isEqualTo(200);
  }
}
