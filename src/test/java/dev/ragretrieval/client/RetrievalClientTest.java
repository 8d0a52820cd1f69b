package dev.ragretrieval.client;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The one client of our own API (query --url, eval --url) against a stand-in server answering what each test says. */
@ExtendWith(VertxExtension.class)
class RetrievalClientTest {

  private static final int PORT = 19431;
  private static final int NOTHING_LISTENING = 19432;
  private static final String BASE = "http://127.0.0.1:" + PORT;

  private HttpServer server;
  private RetrievalClient client;

  private RetrievalClient serve(Vertx vertx, Handler<HttpServerRequest> answer) {
    server = await(vertx.createHttpServer().requestHandler(answer).listen(PORT, "127.0.0.1"));
    client = new RetrievalClient(vertx, BASE + "/", "  client-key ", Duration.ofSeconds(10));
    return client;
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      await(server.close());
    }
  }

  private static void answer(HttpServerRequest request, int status, String body) {
    request.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
  }

  private static ServiceException failure(Future<?> call) {
    try {
      call.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ServiceException.class);
      return (ServiceException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  @DisplayName("a retrieve is a POST to {base}/v1/retrieve with the key as a bearer token, answered with the server's JSON")
  void retrieve(Vertx vertx) {
    AtomicReference<String> seen = new AtomicReference<>();
    RetrievalClient c = serve(vertx, request -> request.body().onSuccess(body -> {
      seen.set(request.method() + " " + request.path() + " " + request.getHeader("Authorization") + " " + body);
      answer(request, 200, "{\"count\": 0, \"results\": []}");
    }));
    JsonObject result = await(c.retrieve(new JsonObject().put("query", "nodes")));
    assertThat(result.getInteger("count")).isZero();
    assertThat(seen.get()).isEqualTo("POST /v1/retrieve Bearer client-key {\"query\":\"nodes\"}");
    assertThat(c.baseUrl()).isEqualTo(BASE);
  }

  @Test
  @DisplayName("an error body keeps the server's code, message and details, and names the server and the status")
  void knownErrorCode(Vertx vertx) {
    RetrievalClient c = serve(vertx, request -> answer(request, 429,
        "{\"error\": {\"code\": \"RATE_LIMIT\", \"message\": \"slow down\", \"details\": {\"limit\": 5}}}"));
    ServiceException e = failure(c.retrieve(new JsonObject().put("query", "nodes")));
    assertThat(e.code()).isEqualTo(ErrorCode.RATE_LIMIT);
    assertThat(e.getMessage()).isEqualTo(BASE + " answered HTTP 429 RATE_LIMIT: slow down");
    assertThat(e.details()).isEqualTo(new JsonObject().put("limit", 5));
  }

  @Test
  @DisplayName("an error body with a code this client does not know is UPSTREAM_ERROR, the code still shown")
  void unknownErrorCode(Vertx vertx) {
    RetrievalClient c = serve(vertx, request -> answer(request, 418,
        "{\"error\": {\"code\": \"TEAPOT\", \"message\": \"a newer server's code\"}}"));
    ServiceException e = failure(c.retrieveBatch(List.of(new JsonObject().put("query", "nodes"))));
    assertThat(e.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    assertThat(e.getMessage()).isEqualTo(BASE + " answered HTTP 418 TEAPOT: a newer server's code");
  }

  @Test
  @DisplayName("a 500 that is not JSON is UPSTREAM_ERROR naming the status; so is a 200 that is not a JSON object")
  void notJson(Vertx vertx) {
    RetrievalClient c = serve(vertx, request -> {
      if (request.path().endsWith("/batch")) {
        answer(request, 200, "[1, 2]");
      } else {
        request.response().setStatusCode(500).putHeader("Content-Type", "text/html").end("<h1>Internal Server Error</h1>");
      }
    });
    ServiceException e = failure(c.retrieve(new JsonObject().put("query", "nodes")));
    assertThat(e.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    assertThat(e.getMessage()).isEqualTo(BASE + " answered HTTP 500");

    ServiceException batch = failure(c.retrieveBatch(List.of(new JsonObject().put("query", "nodes"))));
    assertThat(batch.getMessage()).isEqualTo(BASE + " answered HTTP 200 without a JSON object");
  }

  @Test
  @DisplayName("a batch answers one slot per request in order, results and errors alike; any other count fails the call")
  void batch(Vertx vertx) {
    RetrievalClient c = serve(vertx, request -> request.body().onSuccess(body -> {
      int asked = body.toJsonObject().getJsonArray("queries").size();
      JsonArray results = new JsonArray().add(new JsonObject().put("count", 1))
          .add(new JsonObject().put("error", new JsonObject().put("code", "COLLECTION_NOT_FOUND")));
      JsonArray answered = asked == 2 ? results : new JsonArray().add(results.getValue(0));
      answer(request, 200, new JsonObject().put("results", answered).encode());
    }));
    List<JsonObject> slots = await(c.retrieveBatch(
        List.of(new JsonObject().put("query", "a"), new JsonObject().put("query", "b"))));
    assertThat(slots).hasSize(2);
    assertThat(slots.get(0).getInteger("count")).isEqualTo(1);
    assertThat(slots.get(1).getJsonObject("error").getString("code")).isEqualTo("COLLECTION_NOT_FOUND");

    ServiceException e = failure(c.retrieveBatch(List.of(new JsonObject().put("query", "a"),
        new JsonObject().put("query", "b"), new JsonObject().put("query", "c"))));
    assertThat(e.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
    assertThat(e.getMessage()).isEqualTo(BASE + " answered the batch without one result per question");
  }

  @Test
  @DisplayName("a refused connection is CONNECTION_ERROR 'cannot reach {base} (...)' on one line")
  void refused(Vertx vertx) {
    client = new RetrievalClient(vertx, "http://127.0.0.1:" + NOTHING_LISTENING, null, Duration.ofSeconds(10));
    ServiceException e = failure(client.retrieve(new JsonObject().put("query", "nodes")));
    assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(e.getMessage()).startsWith("cannot reach http://127.0.0.1:" + NOTHING_LISTENING + " (")
        .endsWith(")").doesNotContain("\n");
  }

  @Test
  @DisplayName("only an absolute http(s) URL with a host makes a client")
  void urls() {
    assertThat(RetrievalClient.isHttpUrl("https://search.example.org/rag")).isTrue();
    assertThat(RetrievalClient.isHttpUrl("HTTP://localhost:8080")).isTrue();
    assertThat(RetrievalClient.isHttpUrl("not a url")).isFalse();
    assertThat(RetrievalClient.isHttpUrl("ftp://localhost")).isFalse();
    assertThat(RetrievalClient.isHttpUrl("localhost:8080")).isFalse();
  }
}
