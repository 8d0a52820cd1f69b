package dev.ragretrieval.http;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
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
    var client = vertx.createHttpClient(new HttpClientOptions());
    try {
      await(client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", "/")
          .compose(request -> request.send()).compose(response -> response.body()));
      return await(names.future());
    } finally {
      await(client.close());
      await(server.close());
    }
  }
}
