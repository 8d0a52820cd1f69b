package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.eventually;
import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Shutdown grace expiry: no client is left without an answer or an error event")
class GraceExpiryTest {

  private TestStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
  }

  private Future<HttpResponse<Buffer>> post(String path, String accept, JsonObject body) {
    return stack.client.post(path).putHeader("Accept", accept).sendJsonObject(body);
  }

  @Test
  @DisplayName("streams still open get an OVERLOADED error event and end; JSON requests still open get 503 OVERLOADED with Retry-After")
  void graceExpiry(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "300", "RAG_REQUEST_TIMEOUT_MS", "15000")));
    stack.cohere.delay(Duration.ofMillis(5000));
    JsonObject query = new JsonObject().put("query", "ROS 2 nodes");
    Future<HttpResponse<Buffer>> sse = post("/v1/retrieve", "text/event-stream", query);
    Future<HttpResponse<Buffer>> ndjson = post("/v1/retrieve", "application/x-ndjson", query);
    Future<HttpResponse<Buffer>> json = post("/v1/retrieve", "application/json", query);
    Future<HttpResponse<Buffer>> context = post("/v1/context", "application/json", query);
    Future<HttpResponse<Buffer>> batch = post("/v1/retrieve/batch", "application/json",
        new JsonObject().put("queries", new JsonArray().add(query)));
    eventually(() -> stack.app.metrics().inFlight().get() == 5);

    await(stack.app.shutdown());

    List<Http.Event> events = Http.sse(await(sse).bodyAsString());
    assertThat(events).extracting(Http.Event::name).containsExactly("meta", "error");
    assertThat(events.get(1).data().getString("code")).isEqualTo("OVERLOADED");
    assertThat(events.get(1).data().getString("query_id")).isEqualTo(events.get(0).data().getString("query_id"));

    List<JsonObject> lines = Http.ndjson(await(ndjson).bodyAsString());
    assertThat(lines).extracting(line -> line.getString("event")).containsExactly("meta", "error");
    assertThat(lines.get(1).getJsonObject("data").getString("code")).isEqualTo("OVERLOADED");

    for (Future<HttpResponse<Buffer>> pending : List.of(json, context, batch)) {
      HttpResponse<Buffer> response = await(pending);
      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.getHeader("Retry-After")).isEqualTo("1");
      assertThat(Http.error(response).getString("code")).isEqualTo("OVERLOADED");
      assertThat(Http.error(response).getString("message")).contains("shutting down");
    }
    assertThat(stack.app.metrics().inFlight().get()).isZero();
  }

  @Test
  @DisplayName("requests that finish within the grace are answered normally, not cut by the expiry")
  void withinGrace(Vertx vertx) {
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "5000")));
    stack.cohere.delay(Duration.ofMillis(500));
    Future<HttpResponse<Buffer>> sse = post("/v1/retrieve", "text/event-stream", new JsonObject().put("query", "nodes"));
    eventually(() -> stack.app.metrics().inFlight().get() == 1);

    await(stack.app.shutdown());

    List<Http.Event> events = Http.sse(await(sse).bodyAsString());
    assertThat(events.get(events.size() - 1).name()).isEqualTo("done");
  }

}
