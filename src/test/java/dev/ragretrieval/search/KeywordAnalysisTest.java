package dev.ragretrieval.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.QdrantTestBm25;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class KeywordAnalysisTest {

  @Test
  @DisplayName("tokens as Qdrant's bm25 makes them: split at every non-alphanumeric, lowercase, NLTK stop words out, Snowball English stems")
  void tokens() {
    assertThat(KeywordAnalysis.tokens("How do I use os.path.join() with the Running dogs' pg_dump?"))
        .containsExactly("use", "os", "path", "join", "run", "dog", "pg", "dump");
    assertThat(KeywordAnalysis.tokens("q".repeat(41) + " " + "x".repeat(40))).containsExactly("x".repeat(40));
  }

  @Test
  @DisplayName("the same tokens as the Qdrant test server's bm25 given the options the store sends")
  void sameAsQdrantWithTheOptions() {
    QdrantTestBm25.Config config = QdrantTestBm25.Config.of(
        dev.ragretrieval.search.qdrant.QdrantPayloads.toPayload(KeywordAnalysis.qdrantOptions(100)));
    String text = "Creating a ServerSocket: the Listener's accept() loop blocks until 1 client connects; "
        + "it's the 'simplest' way. Übergrößenträger " + "z".repeat(50);

    assertThat(KeywordAnalysis.tokens(text)).isEqualTo(QdrantTestBm25.tokens(text, config));
    assertThat(config.avgLen()).isEqualTo(100);
  }

  @Test
  @DisplayName("the average length counts the tokens of each payload's keyword text (title, section, text)")
  void averageLength() {
    List<JsonObject> payloads = List.of(
        new JsonObject().put("page_title", "Backups").put("text", "dump the database"),
        new JsonObject().put("text", "restore a dump"));

    assertThat(KeywordAnalysis.averageLength(payloads)).isEqualTo((3 + 2) / 2.0);
    assertThat(KeywordAnalysis.averageLength(List.of())).isZero();
  }
}
