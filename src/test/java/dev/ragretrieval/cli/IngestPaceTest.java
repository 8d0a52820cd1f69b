package dev.ragretrieval.cli;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class IngestPaceTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    await(vertx.close());
  }

  @Test
  @DisplayName("with RAG_INGEST_EMBED_RATE set, ingest turns the embedder's own retries off (the run retries, and books every send)")
  void budgetTurnsProviderRetriesOff() {
    AppConfig budgeted = await(ConfigLoader.load(vertx, Map.of("RAG_INGEST_EMBED_RATE", "2400")));
    int attempts = budgeted.embedding().maxAttempts();
    assertThat(attempts).isGreaterThan(1);
    AppConfig paced = IngestCommand.paced(budgeted);
    assertThat(paced.embedding().maxAttempts()).isEqualTo(1);
    // nothing else changes
    assertThat(paced.withEmbeddingAttempts(attempts)).isEqualTo(budgeted);

    AppConfig unbudgeted = await(ConfigLoader.load(vertx, Map.of()));
    assertThat(IngestCommand.paced(unbudgeted)).isEqualTo(unbudgeted);
  }
}
