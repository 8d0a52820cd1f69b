package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.metrics.MetricsOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.metrics.HttpClientMetrics;
import io.vertx.core.spi.metrics.HttpServerMetrics;
import io.vertx.core.spi.metrics.VertxMetrics;
import io.vertx.core.spi.observability.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * With two HTTP instances, each request's calls to Cohere and Qdrant are written and read on the
 * event loop that serves the request: no hand-over between threads. Vert.x's metrics SPI reports
 * every read and write of a client connection on the thread that does it, and a server request's
 * start on the thread that serves it; this test records both.
 */
@DisplayName("a request's upstream calls run on the event loop that serves it")
class EventLoopAffinityTest {

  private static final int REQUESTS = 6;

  /** A read or write on a client connection: which thread, to which port. */
  private record Io(String thread, int port) {}

  private final Queue<String> servedOn = new ConcurrentLinkedQueue<>();
  private final Queue<Io> clientIo = new ConcurrentLinkedQueue<>();
  private final Vertx vertx = Vertx.builder()
      .with(new VertxOptions().setMetricsOptions(new MetricsOptions().setEnabled(true)))
      .withMetrics(options -> new ThreadRecorder())
      .build();
  private TestStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
    await(vertx.close());
  }

  @Test
  @DisplayName("new questions on fresh connections: embed and search on the serving loop, both loops serving")
  void upstreamCallsStayOnTheServingLoop() {
    stack = await(TestStack.start(vertx, Map.of("RAG_HTTP_INSTANCES", "2")));
    Set<Integer> upstreams = Set.of(stack.cohere.port(), stack.qdrant.port());
    Set<String> loops = new HashSet<>();
    for (int i = 0; i < REQUESTS; i++) {
      servedOn.clear();
      clientIo.clear();
      WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
          .setDefaultPort(stack.app.httpPort()), new PoolOptions().setHttp1MaxSize(1));
      try {
        HttpResponse<Buffer> answer = await(client.post("/v1/retrieve")
            .sendJsonObject(new JsonObject().put("query", "question number " + i + " about nodes").put("top_k", 2)));
        assertThat(answer.statusCode()).isEqualTo(200);
      } finally {
        client.close();
      }
      assertThat(servedOn).hasSize(1);
      String loop = servedOn.peek();
      loops.add(loop);
      int request = i;
      List<Io> upstreamIo = clientIo.stream().filter(io -> upstreams.contains(io.port())).toList();
      // a new question: one embedding call and one search, at least a write and a read each
      assertThat(upstreamIo.stream().map(Io::port).distinct()).containsExactlyInAnyOrderElementsOf(upstreams);
      assertThat(upstreamIo).allSatisfy(io -> assertThat(io.thread()).as("request %d, port %d", request, io.port())
          .isEqualTo(loop));
    }
    assertThat(loops).hasSize(2).allMatch(thread -> thread.startsWith("vert.x-eventloop-thread-"));
  }

  /** Records on which thread the service's requests start and its client connections read and write. */
  private final class ThreadRecorder implements VertxMetrics {

    @Override
    public HttpServerMetrics<?, ?, ?> createHttpServerMetrics(HttpServerOptions options, SocketAddress local) {
      return new HttpServerMetrics<Object, Object, Object>() {
        @Override
        public Object requestBegin(Object socket, HttpRequest request) {
          if (request.uri().startsWith("/v1/retrieve")) {
            servedOn.add(Thread.currentThread().getName());
          }
          return null;
        }
      };
    }

    @Override
    public HttpClientMetrics<?, ?, ?> createHttpClientMetrics(HttpClientOptions options) {
      return new HttpClientMetrics<Object, Object, Object>() {
        @Override
        public void bytesRead(Object socket, SocketAddress remote, long bytes) {
          clientIo.add(new Io(Thread.currentThread().getName(), remote.port()));
        }

        @Override
        public void bytesWritten(Object socket, SocketAddress remote, long bytes) {
          clientIo.add(new Io(Thread.currentThread().getName(), remote.port()));
        }
      };
    }
  }
}
