package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.eventually;
import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Resilience: upstream outages, client disconnects and graceful shutdown")
class ResilienceTest {

  private TestStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
  }

  private HttpResponse<Buffer> retrieve(String query) {
    return await(stack.client.post("/v1/retrieve").sendJsonObject(new JsonObject().put("query", query)));
  }

  private HttpResponse<Buffer> ready() {
    return await(stack.client.get("/health/ready").send());
  }

  @Test
  @DisplayName("Qdrant stopped: readiness DOWN and CONNECTION_ERROR; restarted: UP and answers again")
  void qdrantOutage(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "2000")));
    assertThat(ready().statusCode()).isEqualTo(200);

    await(stack.qdrant.stop());
    HttpResponse<Buffer> down = ready();
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.bodyAsJsonObject().getString("status")).isEqualTo("DOWN");
    assertThat(down.bodyAsJsonObject().getString("reason")).contains("vector store");
    assertThat(retrieve("nodes").statusCode()).isEqualTo(503);

    await(stack.qdrant.restart());
    eventually(() -> ready().statusCode() == 200);
    HttpResponse<Buffer> again = retrieve("ROS 2 nodes");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.bodyAsJsonObject().getInteger("count")).isPositive();
  }

  @Test
  @DisplayName("Qdrant keeps failing: the circuit opens, 503 CONNECTION_ERROR with Retry-After at once, Qdrant not called; it closes when Qdrant answers")
  void qdrantCircuit(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "2000"), new JsonObject().put("qdrant",
        new JsonObject().put("circuit_breaker", new JsonObject().put("failures", 3).put("open_ms", 3000))), null));
    assertThat(retrieve("ROS 2 nodes").statusCode()).isEqualTo(200);
    // a live server answering UNAVAILABLE counts the calls it gets, which a stopped one cannot;
    // each request makes qdrant.max_attempts (2 here) calls
    stack.qdrant.failNext(6, GrpcStatus.UNAVAILABLE, null);
    for (int i = 0; i < 3; i++) {
      HttpResponse<Buffer> failed = retrieve("topics " + i);
      assertThat(failed.statusCode()).isEqualTo(503);
      assertThat(failed.bodyAsJsonObject().getJsonObject("error").getString("message")).doesNotContain("circuit");
    }
    int queries = stack.qdrant.callCount("Query");

    HttpResponse<Buffer> rejected = retrieve("services");
    assertThat(rejected.statusCode()).isEqualTo(503);
    assertThat(rejected.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("CONNECTION_ERROR");
    assertThat(rejected.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("circuit open");
    assertThat(Integer.parseInt(rejected.getHeader("Retry-After"))).isBetween(1, 3);
    HttpResponse<Buffer> down = ready();
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.bodyAsJsonObject().getString("reason")).contains("circuit open");
    assertThat(stack.qdrant.callCount("Query")).as("no Query reached Qdrant while the circuit was open").isEqualTo(queries);

    // a question not asked before: "ROS 2 nodes" would be answered from the result cache
    eventually(() -> retrieve("ROS 2 launch files").statusCode() == 200);
    assertThat(ready().statusCode()).isEqualTo(200);
    assertThat(stack.qdrant.callCount("Query")).isGreaterThan(queries);
  }

  @Test
  @DisplayName("the embedding provider's circuit open: readiness is DOWN naming the embedder, and UP again once it closes")
  void embedderCircuitInReadiness(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "2000"), new JsonObject().put("embedding",
        new JsonObject().put("circuit_breaker", new JsonObject().put("failures", 3).put("open_ms", 3000))), null));
    assertThat(ready().statusCode()).isEqualTo(200);
    stack.cohere.failNext(6, 500, null);
    for (int i = 0; i < 3; i++) {
      assertThat(retrieve("new question " + i).statusCode()).isEqualTo(502);
    }

    HttpResponse<Buffer> down = ready();
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.bodyAsJsonObject().getString("reason")).contains("embedding provider").contains("circuit open");
    assertThat(down.bodyAsJsonObject().getJsonArray("checks").stream().map(JsonObject.class::cast)
        .filter(check -> check.getString("name").equals("embedder")).findFirst().orElseThrow().getString("status"))
        .isEqualTo("DOWN");

    eventually(() -> retrieve("ROS 2 nodes").statusCode() == 200);
    assertThat(ready().statusCode()).isEqualTo(200);
  }

  @Test
  @DisplayName("readiness is DOWN with the reason when the collection is missing or its vector size differs")
  void readinessReasons(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("QDRANT_COLLECTION", "missing_collection", "RAG_SHUTDOWN_GRACE_MS", "2000")));
    HttpResponse<Buffer> missing = ready();
    assertThat(missing.statusCode()).isEqualTo(503);
    assertThat(missing.bodyAsJsonObject().getString("reason")).contains("missing_collection").contains("does not exist");
    await(stack.close());

    stack = await(TestStack.start(vertx, Map.of("COHERE_EMBED_DIMENSION", "32", "RAG_SHUTDOWN_GRACE_MS", "2000")));
    HttpResponse<Buffer> wrongSize = ready();
    assertThat(wrongSize.statusCode()).isEqualTo(503);
    assertThat(wrongSize.bodyAsJsonObject().getString("reason")).contains("64").contains("32");
  }

  @Test
  @DisplayName("graceful shutdown: readiness 503 and new work refused at once, the slow request still completes with 200")
  void gracefulShutdown(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "10000")));
    stack.cohere.delay(Duration.ofMillis(3000));
    Future<HttpResponse<Buffer>> slow = stack.client.post("/v1/retrieve")
        .sendJsonObject(new JsonObject().put("query", "ROS 2 node"));
    eventually(() -> stack.app.metrics().inFlight().get() >= 1);

    Future<Void> shutdown = stack.app.shutdown();
    HttpResponse<Buffer> readiness = ready();
    assertThat(readiness.statusCode()).isEqualTo(503);
    assertThat(readiness.bodyAsJsonObject().getString("status")).isEqualTo("DOWN");
    HttpResponse<Buffer> refused = retrieve("topics");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.getHeader("Retry-After")).isNotBlank();
    assertThat(shutdown.isComplete()).isFalse();

    HttpResponse<Buffer> completed = await(slow);
    assertThat(completed.statusCode()).isEqualTo(200);
    assertThat(completed.bodyAsJsonObject().getInteger("count")).isPositive();
    await(shutdown);
    assertThat(stack.app.shutdown()).isSameAs(shutdown);
  }

  @Test
  @DisplayName("a client that leaves mid-stream frees its slot and its open-stream count exactly once")
  void clientDisconnect(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_MAX_IN_FLIGHT", "1", "RAG_SHUTDOWN_GRACE_MS", "2000")));
    int streamsBefore = stack.app.metrics().openStreams().get();
    stack.cohere.delay(Duration.ofMillis(1000));
    HttpClient http = vertx.createHttpClient();
    AtomicReference<HttpConnection> connection = new AtomicReference<>();
    try {
      HttpClientResponse response = await(http.request(new RequestOptions().setMethod(HttpMethod.POST)
              .setHost("127.0.0.1").setPort(stack.app.httpPort()).setURI("/v1/retrieve"))
          .compose(request -> {
            connection.set(request.connection());
            request.putHeader("Content-Type", "application/json").putHeader("Accept", "text/event-stream");
            return request.send(new JsonObject().put("query", "nodes").encode()).onSuccess(r -> r.pause());
          }));
      assertThat(response.statusCode()).isEqualTo(200);
      eventually(() -> stack.app.metrics().openStreams().get() == streamsBefore + 1);
      await(connection.get().close());
    } finally {
      http.close();
    }
    eventually(() -> stack.app.metrics().openStreams().get() == streamsBefore && stack.app.metrics().inFlight().get() == 0);
    stack.cohere.delay(Duration.ZERO);
    // the only slot is free again, and the late upstream answer wrote nothing anywhere
    assertThat(retrieve("ROS 2 nodes").statusCode()).isEqualTo(200);
    assertThat(stack.app.metrics().openStreams().get()).isEqualTo(streamsBefore);
    // the slot is given back once the answer is written, which the client may see a moment before
    eventually(() -> stack.app.metrics().inFlight().get() == 0);
  }

  @Test
  @DisplayName("/metrics serves the handler it was given; health and metrics never count as in flight")
  void metrics(Vertx vertx) {
    io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry =
        new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "2000"), new JsonObject(),
        new RagMetrics(registry), io.vertx.micrometer.PrometheusScrapingHandler.create(registry)));
    assertThat(await(stack.client.post("/v1/retrieve").sendJsonObject(new JsonObject().put("query", " "))).statusCode())
        .isEqualTo(400);
    HttpResponse<Buffer> metrics = await(stack.client.get("/metrics").send());
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.bodyAsString())
        .contains("rag_requests_in_flight 0.0")
        .contains("rag_errors_total{code=\"EMPTY_QUERY\",route=\"/v1/retrieve\"} 1.0");
  }

}
