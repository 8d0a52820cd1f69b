package dev.ragretrieval.rerank;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingTestConfigs;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class CohereRerankerTest {

  private static final List<String> DOCS = List.of("Gazebo simulates worlds", "Lidar sensors feed perception", "SLAM builds maps");

  private CohereTestServer cohere;
  private Vertx vertx;

  @BeforeEach
  void start(Vertx vertx) {
    this.vertx = vertx;
    cohere = await(CohereTestServer.start(vertx, "key", 8));
  }

  @AfterEach
  void stop() {
    await(cohere.stop());
  }

  private CohereReranker reranker(String key) {
    return new CohereReranker(vertx, EmbeddingTestConfigs.cohere(cohere.baseUrl(), key, 8, 3), AppConfig.Rerank.OFF, dev.ragretrieval.observability.RagMetrics.detached());
  }

  @Test
  @DisplayName("hits come back most relevant first, at most top_n, with the document index and relevance_score")
  void order() {
    List<RerankHit> hits = await(reranker("key").rerank("which sensors feed perception", DOCS, 2,
        EmbeddingTestConfigs.in(Duration.ofSeconds(5))));

    assertThat(hits).hasSize(2);
    assertThat(hits.get(0).index()).isEqualTo(1);
    assertThat(hits.get(0).relevanceScore()).isEqualTo(CohereTestServer.relevance("which sensors feed perception", DOCS.get(1)));
    assertThat(hits.get(0).relevanceScore()).isGreaterThanOrEqualTo(hits.get(1).relevanceScore());
  }

  @Test
  @DisplayName("a rejected key is UPSTREAM_ERROR at once, without retries, and the key is not in the message")
  void rejectedKey() {
    assertThatThrownBy(() -> await(reranker("wrong-key").rerank("q", DOCS, 2, EmbeddingTestConfigs.in(Duration.ofSeconds(5)))))
        .cause()
        .isInstanceOfSatisfying(ServiceException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(e.getMessage()).doesNotContain("wrong-key");
        });
    assertThat(cohere.callCount()).isEqualTo(1);
  }

  @Test
  @DisplayName("a 5xx is retried; malformed JSON is UPSTREAM_ERROR")
  void failures() {
    cohere.failNext(1, 503, null);
    assertThat(await(reranker("key").rerank("maps", DOCS, 1, EmbeddingTestConfigs.in(Duration.ofSeconds(5))))).hasSize(1);
    assertThat(cohere.callCount()).isEqualTo(2);

    cohere.badJsonNext(1);
    assertThatThrownBy(() -> await(reranker("key").rerank("maps", DOCS, 1, EmbeddingTestConfigs.in(Duration.ofSeconds(5)))))
        .cause()
        .isInstanceOfSatisfying(ServiceException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR));
  }
}
