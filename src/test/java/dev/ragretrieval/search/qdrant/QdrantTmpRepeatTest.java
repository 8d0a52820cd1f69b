package dev.ragretrieval.search.qdrant;

import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.config;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.failure;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;

import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import dev.ragretrieval.upstream.Retry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class QdrantTmpRepeatTest {
  @RepeatedTest(40)
  void stopThenCall(Vertx vertx) {
    QdrantTestServer qdrant = await(QdrantTestServer.start(vertx, 0, null));
    qdrant.createCollection("docs", 2);
    qdrant.upsert("docs", "1", new float[] {1, 0}, new JsonObject());
    QdrantVectorStore store = new QdrantVectorStore(vertx, config("127.0.0.1", qdrant.port(), null, 1),
        new Retry.Policy(1, Duration.ofMillis(20), Duration.ofMillis(200)), HostResolver.SYSTEM);
    SearchRequest r = new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(), in(Duration.ofSeconds(5)));
    await(store.search(r));
    await(qdrant.stop());
    System.err.println("RESULT " + failure(store.search(r)).code());
    await(qdrant.restart());
    try { await(store.search(r)); System.err.println("AFTER ok"); } catch (RuntimeException e) { System.err.println("AFTER " + e); }
    await(store.close());
    await(qdrant.stop());
  }
}
