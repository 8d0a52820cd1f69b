package dev.ragretrieval.search.qdrant;

import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.config;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A host name with several addresses (a headless Service) spreads calls over all of them. */
@ExtendWith(VertxExtension.class)
class QdrantEndpointsTest {

  private QdrantTestServer first;
  private QdrantTestServer second;
  private QdrantVectorStore store;

  @AfterEach
  void cleanUp() {
    if (store != null) {
      await(store.close());
    }
    if (first != null) {
      await(first.stop());
    }
    if (second != null) {
      await(second.stop());
    }
  }

  @Test
  @DisplayName("two servers behind one resolved name both receive searches, in turn")
  void spreadsOverResolvedAddresses(Vertx vertx) throws UnknownHostException {
    first = await(QdrantTestServer.start(vertx, "127.0.0.1", 0, null));
    second = await(QdrantTestServer.start(vertx, "127.0.0.2", first.port(), null));
    for (QdrantTestServer s : List.of(first, second)) {
      s.createCollection("docs", 2);
      s.upsert("docs", "1", new float[] {1, 0}, new JsonObject().put("text", "one"));
    }
    List<InetAddress> pods = List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("127.0.0.2"));
    store = new QdrantVectorStore(vertx, config("qdrant-headless.test", first.port(), null, 1),
        QdrantVectorStore.retryPolicy(config("x", 1, null, 1)), HostResolver.fixed(pods), dev.ragretrieval.observability.RagMetrics.detached());

    for (int i = 0; i < 6; i++) {
      assertThat(await(store.search(search()))).hasSize(1);
    }

    assertThat(first.callCount("Query")).isPositive();
    assertThat(second.callCount("Query")).isPositive();
    assertThat(first.callCount("Query") + second.callCount("Query")).isEqualTo(6);
  }

  @Test
  @DisplayName("when the name resolves to other addresses later, calls follow them")
  void followsNewAddresses(Vertx vertx) throws UnknownHostException {
    first = await(QdrantTestServer.start(vertx, "127.0.0.1", 0, null));
    first.createCollection("docs", 2);
    first.upsert("docs", "1", new float[] {1, 0}, new JsonObject().put("text", "one"));
    AtomicReference<List<InetAddress>> dns = new AtomicReference<>(List.of(InetAddress.getByName("127.0.0.1")));
    store = new QdrantVectorStore(vertx, config("qdrant-moving.test", first.port(), null, 2),
        QdrantVectorStore.retryPolicy(config("x", 1, null, 2)), host -> io.vertx.core.Future.succeededFuture(dns.get()), dev.ragretrieval.observability.RagMetrics.detached());
    assertThat(await(store.search(search()))).hasSize(1);

    // the pod moves: old address gone, new one up; the failed connection triggers a new look-up
    second = await(QdrantTestServer.start(vertx, "127.0.0.2", first.port(), null));
    second.createCollection("docs", 2);
    second.upsert("docs", "1", new float[] {1, 0}, new JsonObject().put("text", "moved"));
    dns.set(List.of(InetAddress.getByName("127.0.0.2")));
    await(first.stop());
    first = null;

    assertThat(await(store.search(search())).get(0).payload().getString("text")).isEqualTo("moved");
  }

  private static SearchRequest search() {
    return new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(), in(Duration.ofSeconds(5)));
  }
}
