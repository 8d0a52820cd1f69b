package dev.ragretrieval.http;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.impl.VertxConnection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HttpEdgeTest {

  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() {
    await(vertx.close());
  }

  @Test
  @DisplayName("a connection's pipeline has no WebSocket extension handler: the service has no WebSocket route")
  void noWebSocketHandlerInThePipeline() {
    AppConfig config = await(ConfigLoader.load(vertx, Map.of("RAG_HTTP_PORT", "0")));
    HttpServerOptions edge = new HttpEdge(config.http(), null, null).options();
    // vert.x's defaults put one there: the check below sees it
    assertThat(pipelineOf(new HttpServerOptions())).anyMatch(name -> name.toLowerCase().contains("websocket"));
    assertThat(pipelineOf(edge)).contains("httpDecoder").noneMatch(name -> name.toLowerCase().contains("websocket"));
  }

  /** The handler names of the first connection's pipeline, once it has served a request. */
  private List<String> pipelineOf(HttpServerOptions options) {
    Promise<List<String>> names = Promise.promise();
    var server = vertx.createHttpServer(options.setHost("127.0.0.1").setPort(0))
        .requestHandler(request -> {
          names.tryComplete(((VertxConnection) request.connection()).channelHandlerContext().pipeline().names());
          request.response().end();
        });
    await(server.listen());
    // a raw socket, not vert.x's HttpClient: sent from this (non-vert.x) thread with a new client
    // each time, 3 of 600 such requests never completed (this raw exchange: 600 of 600)
    NetClient client = vertx.createNetClient();
    try {
      NetSocket socket = await(client.connect(server.actualPort(), "127.0.0.1"));
      Promise<Void> answered = Promise.promise();
      socket.handler(bytes -> {
        if (bytes.toString().startsWith("HTTP/1.1 200")) {
          answered.tryComplete();
        }
      });
      await(socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
      await(answered.future());
      return await(names.future());
    } finally {
      await(client.close());
      await(server.close());
    }
  }
}
