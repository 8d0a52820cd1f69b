package dev.ragretrieval.observability;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.junit5.VertxExtension;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class HealthCheckTest {

  @Test
  @DisplayName("the image health check passes on 200 from /health/live and fails on any other answer")
  void followsLiveness(Vertx vertx) throws Exception {
    AtomicInteger status = new AtomicInteger(200);
    HttpServer server = vertx.createHttpServer()
        .requestHandler(req -> req.response()
            .setStatusCode(req.path().equals("/health/live") ? status.get() : 404).end())
        .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(HealthCheck.live(server.actualPort(), 2000)).isTrue();
    status.set(503);
    assertThat(HealthCheck.live(server.actualPort(), 2000)).isFalse();
  }

  @Test
  @DisplayName("the image health check fails when nothing listens")
  void nothingListening() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    assertThat(HealthCheck.live(port, 1000)).isFalse();
  }
}
