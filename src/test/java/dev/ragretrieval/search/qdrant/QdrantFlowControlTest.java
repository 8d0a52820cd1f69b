package dev.ragretrieval.search.qdrant;

import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HTTP/2 flow control on the Qdrant channel: answers carry every hit's payload, and HTTP/2's
 * default window (64 KiB) is smaller than many of them.
 */
@ExtendWith(VertxExtension.class)
class QdrantFlowControlTest {

  @Test
  @DisplayName("the channel offers Qdrant a 1 MiB window a call, and an answer of 600 KB arrives whole")
  void largeAnswers(Vertx vertx) {
    QdrantTestServer qdrant = await(QdrantTestServer.start(vertx));
    qdrant.createCollection("docs", 2);
    String text = "x".repeat(30_000);
    for (int i = 0; i < 20; i++) {
      qdrant.upsert("docs", "00000000-0000-0000-0000-0000000000" + (10 + i), new float[] {1, i / 20f},
          new JsonObject().put("text", text).put("chunk_index", i));
    }
    QdrantVectorStore store = new QdrantVectorStore(vertx,
        QdrantTestSupport.config("127.0.0.1", qdrant.port(), null, 1), RagMetrics.detached());
    try {
      List<ScoredPoint> hits = await(store.search(
          new SearchRequest("docs", new float[] {1, 0}, 20, 0f, Map.of(), in(Duration.ofSeconds(10)))));

      assertThat(hits).hasSize(20).allSatisfy(hit -> assertThat(hit.payload().getString("text")).hasSize(30_000));
      assertThat(qdrant.lastClientWindow()).isEqualTo(QdrantChannel.CALL_WINDOW_BYTES);
    } finally {
      await(store.close());
      await(qdrant.stop());
    }
  }
}
