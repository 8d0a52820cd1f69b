package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.eventually;
import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.app.RawHttp.Response;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Connection limits: header and idle timeouts, the connection cap, liveness under a flood")
class ConnectionLimitsTest {

  private static final byte[] LIVE = RawHttp.get("/health/live");

  private TestStack stack;
  private final List<Socket> sockets = new ArrayList<>();

  @AfterEach
  void stop() {
    sockets.forEach(socket -> {
      try {
        socket.close();
      } catch (IOException ignored) {
        // already gone
      }
    });
    if (stack != null) {
      await(stack.close());
    }
  }

  private int start(Vertx vertx, Map<String, String> settings, JsonObject http) {
    Map<String, String> all = new HashMap<>(settings);
    all.putIfAbsent("RAG_SHUTDOWN_GRACE_MS", "1000");
    stack = await(TestStack.start(vertx, all, new JsonObject().put("http", http), null));
    return stack.app.httpPort();
  }

  private Socket open(int port) throws IOException {
    Socket socket = RawHttp.connect(port);
    sockets.add(socket);
    return socket;
  }

  /** A kept-alive connection that has had one answer and now sits idle. */
  private Socket idleAfterOneRequest(int port) throws IOException {
    Socket socket = open(port);
    assertThat(RawHttp.send(socket, LIVE).status()).isEqualTo(200);
    return socket;
  }

  /** Sends {@code head} a byte at a time, waiting {@code pauseMillis} after each; true once the server has closed. */
  private static boolean sentSlowlyUntilClosed(Socket socket, byte[] head, int pauseMillis) throws IOException {
    for (byte b : head) {
      try {
        socket.getOutputStream().write(b);
        socket.getOutputStream().flush();
      } catch (IOException reset) {
        return true;
      }
      if (RawHttp.closedWithin(socket, pauseMillis)) {
        return true;
      }
    }
    return false;
  }

  private double openConnections() {
    return stack.app.metrics().registry().get("rag_http_connections_open").gauge().value();
  }

  private static byte[] retrieve(String query, String... headers) {
    return RawHttp.postJson("/v1/retrieve",
        new JsonObject().put("query", query).encode().getBytes(StandardCharsets.UTF_8), headers);
  }

  @Test
  @DisplayName("a kept-alive connection left idle past the idle timeout is closed by the server")
  void idleKeepAliveClosed(Vertx vertx) throws IOException {
    int port = start(vertx, Map.of("RAG_IDLE_TIMEOUT_MS", "300"), new JsonObject());
    Socket socket = idleAfterOneRequest(port);
    assertThat(RawHttp.closedByServer(socket)).isTrue();
  }

  @Test
  @DisplayName("the idle timeout counts from the last answer: a connection used every 100 ms outlives many timeouts, then closes once left")
  void idleTimeoutRestartsWithEachRequest(Vertx vertx) throws IOException, InterruptedException {
    int port = start(vertx, Map.of("RAG_IDLE_TIMEOUT_MS", "300"), new JsonObject());
    Socket socket = idleAfterOneRequest(port);
    long started = System.nanoTime();
    // 2 s of requests 100 ms apart: more than six idle timeouts in all, never one idle gap that long
    while (System.nanoTime() - started < 2_000_000_000L) {
      Thread.sleep(100);
      assertThat(RawHttp.send(socket, LIVE).status()).isEqualTo(200);
    }
    long lastAnswer = System.nanoTime();
    assertThat(RawHttp.closedByServer(socket)).isTrue();
    assertThat((System.nanoTime() - lastAnswer) / 1_000_000).as("closed about one idle timeout after the last answer")
        .isBetween(250L, 2_000L);
  }

  @Test
  @DisplayName("the idle timeout never cuts a request in progress: a slow answer still arrives")
  void idleTimeoutSparesRequestInProgress(Vertx vertx) throws IOException {
    int port = start(vertx, Map.of("RAG_IDLE_TIMEOUT_MS", "200", "RAG_HEADER_TIMEOUT_MS", "200"), new JsonObject());
    stack.cohere.delay(Duration.ofMillis(1000));
    Response response = RawHttp.send(open(port), retrieve("ROS 2 nodes"));
    assertThat(response.status()).isEqualTo(200);
    assertThat(new JsonObject(response.body()).getInteger("count")).isPositive();
  }

  @Test
  @DisplayName("slowloris: a client that sends its head one byte at a time is closed at the header timeout")
  void slowlorisClosed(Vertx vertx) throws IOException, InterruptedException {
    int port = start(vertx, Map.of("RAG_HEADER_TIMEOUT_MS", "500"), new JsonObject());
    Socket socket = open(port);
    byte[] head = "GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        .getBytes(StandardCharsets.US_ASCII);
    boolean closed = sentSlowlyUntilClosed(socket, head, 100);
    assertThat(closed).as("closed before the head was complete").isTrue();
    assertThat(stack.app.metrics().registry().get("rag_http_connections_closed_total").tag("reason", "header_timeout")
        .counter().count()).isEqualTo(1);
  }

  @Test
  @DisplayName("slowloris on a kept-alive connection: a later request head sent byte by byte is closed at the idle timeout")
  void slowlorisAfterFirstRequestClosed(Vertx vertx) throws IOException {
    int port = start(vertx, Map.of("RAG_IDLE_TIMEOUT_MS", "500", "RAG_HEADER_TIMEOUT_MS", "60000"), new JsonObject());
    Socket socket = idleAfterOneRequest(port);
    byte[] head = ("GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a".repeat(200))
        .getBytes(StandardCharsets.US_ASCII);
    boolean closed = sentSlowlyUntilClosed(socket, head, 50);
    assertThat(closed).as("closed before the head was complete").isTrue();
  }

  @Test
  @DisplayName("at the cap, a new connection is served and the connection idle the longest is closed to make room")
  void capClosesLongestIdle(Vertx vertx) throws IOException {
    int port = start(vertx, Map.of("RAG_MAX_CONNECTIONS", "3"), new JsonObject());
    Socket oldest = idleAfterOneRequest(port);
    idleAfterOneRequest(port);
    Socket newest = idleAfterOneRequest(port);

    Response answered = RawHttp.send(open(port), retrieve("ROS 2 nodes"));
    assertThat(answered.status()).isEqualTo(200);
    assertThat(RawHttp.closedByServer(oldest)).isTrue();
    assertThat(RawHttp.send(newest, LIVE).status()).as("a younger idle connection still serves").isEqualTo(200);
    eventually(() -> openConnections() <= 3);
  }

  @Test
  @DisplayName("every connection busy: a new one still gets /health/live, /v1 gets 503 OVERLOADED with Retry-After, then it is closed")
  void busyCapServesLivenessOnly(Vertx vertx) throws IOException {
    int port = start(vertx, Map.of("RAG_MAX_CONNECTIONS", "2"), new JsonObject().put("connection_reserve", 2));
    stack.cohere.delay(Duration.ofMillis(4000));
    for (int i = 0; i < 2; i++) {
      Socket busy = open(port);
      busy.getOutputStream().write(retrieve("nodes " + i, "Accept: text/event-stream"));
    }
    eventually(() -> stack.app.metrics().inFlight().get() == 2);

    Socket probe = open(port);
    Response live = RawHttp.send(probe, LIVE);
    assertThat(live.status()).isEqualTo(200);
    assertThat(new JsonObject(live.body()).getString("status")).isEqualTo("UP");
    assertThat(RawHttp.closedByServer(probe)).isTrue();

    Socket refused = open(port);
    Response overloaded = RawHttp.send(refused, retrieve("topics"));
    assertThat(overloaded.status()).isEqualTo(503);
    assertThat(overloaded.header("Retry-After")).isEqualTo("1");
    assertThat(overloaded.header("Content-Type")).startsWith("application/json");
    assertThat(overloaded.error().getString("code")).isEqualTo("OVERLOADED");
    assertThat(overloaded.error().fieldNames()).containsExactlyInAnyOrder("code", "message", "details", "query_id");
    assertThat(RawHttp.closedByServer(refused)).isTrue();
    assertThat(stack.app.metrics().inFlight().get()).as("the refused request did no work").isEqualTo(2);
  }

  @Test
  @DisplayName("every connection busy and no reserve: a new connection is closed before anything is read")
  void beyondReserveClosedAtOnce(Vertx vertx) throws IOException {
    int port = start(vertx, Map.of("RAG_MAX_CONNECTIONS", "1"), new JsonObject().put("connection_reserve", 0));
    stack.cohere.delay(Duration.ofMillis(4000));
    open(port).getOutputStream().write(retrieve("nodes", "Accept: text/event-stream"));
    eventually(() -> stack.app.metrics().inFlight().get() == 1);

    Socket beyond = open(port);
    assertThat(RawHttp.closedByServer(beyond)).isTrue();
    assertThat(stack.app.metrics().registry().get("rag_http_connections_closed_total").tag("reason", "refused")
        .counter().count()).isEqualTo(1);
  }

  @Test
  @DisplayName("a flood of idle and slow connections, many times the cap: /health/live answers throughout, and the flood is closed")
  void livenessThroughFlood(Vertx vertx) throws IOException {
    int port = start(vertx, Map.of("RAG_MAX_CONNECTIONS", "8", "RAG_HEADER_TIMEOUT_MS", "2000",
        "RAG_IDLE_TIMEOUT_MS", "2000"), new JsonObject().put("connection_reserve", 2));
    List<Socket> slow = new ArrayList<>();
    List<Socket> idle = new ArrayList<>();
    for (int round = 0; round < 10; round++) {
      for (int i = 0; i < 4; i++) {
        idle.add(open(port));
        Socket s = open(port);
        s.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        slow.add(s);
      }
      for (Socket s : slow) {
        try {
          s.getOutputStream().write('a');
        } catch (IOException closedAlready) {
          // the server closed it: what the guard is for
        }
      }
      Response live = RawHttp.send(port, RawHttp.get("/health/live", "Connection: close"));
      assertThat(live.status()).as("liveness in round " + round).isEqualTo(200);
    }
    // 80 flood connections against a cap of 8: all but the last few were closed to make room
    for (Socket s : idle.subList(0, 30)) {
      assertThat(RawHttp.closedByServer(s)).isTrue();
    }
    for (Socket s : slow.subList(0, 30)) {
      assertThat(RawHttp.closedByServer(s)).isTrue();
    }
    eventually(() -> openConnections() <= 8);
  }

}
