package dev.ragretrieval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.search.ScoredPoint;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("PayloadMapper: result fields from the first payload key present (docs/API.md section 3)")
class PayloadMapperTest {

  private final PayloadMapper mapper = new PayloadMapper(ConfigLoader.fromJson(
      new JsonObject().put("retrieval", new JsonObject().put("max_text_chars", 100)), Map.of()).retrieval());

  @Test
  @DisplayName("canonical keys map one to one, the whole payload is the metadata")
  void canonical() {
    JsonObject payload = new JsonObject()
        .put("text", "ROS 2 nodes").put("source_url", "https://x/a").put("page_title", "Intro")
        .put("chapter", "module-1").put("section", "Nodes").put("chunk_index", 4).put("chunk_id", "doc-1#4")
        .put("document_id", "doc-1");
    RetrievedChunk chunk = mapper.map(2, new ScoredPoint("8d0b4f1e-0000-0000-0000-000000000001", 0.875f, payload));
    assertThat(chunk.rank()).isEqualTo(2);
    assertThat(chunk.id()).isEqualTo("8d0b4f1e-0000-0000-0000-000000000001");
    assertThat(chunk.chunkId()).isEqualTo("doc-1#4");
    assertThat(chunk.text()).isEqualTo("ROS 2 nodes");
    assertThat(chunk.score()).isEqualTo(0.875);
    assertThat(chunk.sourceUrl()).isEqualTo("https://x/a");
    assertThat(chunk.pageTitle()).isEqualTo("Intro");
    assertThat(chunk.chapter()).isEqualTo("module-1");
    assertThat(chunk.section()).isEqualTo("Nodes");
    assertThat(chunk.chunkIndex()).isEqualTo(4);
    assertThat(chunk.metadata()).isEqualTo(payload);
    assertThat(chunk.truncated()).isFalse();
  }

  @Test
  @DisplayName("alias keys are read in the configured order")
  void aliases() {
    JsonObject payload = new JsonObject()
        .put("content", "from content").put("chunk_text", "from chunk_text")
        .put("url", "https://x/b").put("title", "T").put("document_title", "DT")
        .put("chapter_title", "C").put("section_title", "S").put("position", 9);
    RetrievedChunk chunk = mapper.map(1, new ScoredPoint("42", 0.5f, payload));
    assertThat(chunk.text()).isEqualTo("from content");
    assertThat(chunk.sourceUrl()).isEqualTo("https://x/b");
    assertThat(chunk.pageTitle()).isEqualTo("T");
    assertThat(chunk.chapter()).isEqualTo("C");
    assertThat(chunk.section()).isEqualTo("S");
    assertThat(chunk.chunkIndex()).isEqualTo(9);

    RetrievedChunk raw = mapper.map(1, new ScoredPoint("43", 0.5f, new JsonObject().put("raw_text", "r").put("content", "c")));
    assertThat(raw.text()).isEqualTo("r");
  }

  @Test
  @DisplayName("chunk_id falls back to the point id; absent fields stay null")
  void absent() {
    RetrievedChunk chunk = mapper.map(1, new ScoredPoint("17", 0.3f, new JsonObject().put("text", "only text")));
    assertThat(chunk.chunkId()).isEqualTo("17");
    assertThat(chunk.sourceUrl()).isNull();
    assertThat(chunk.pageTitle()).isNull();
    assertThat(chunk.chapter()).isNull();
    assertThat(chunk.section()).isNull();
    assertThat(chunk.chunkIndex()).isNull();

    RetrievedChunk empty = mapper.map(1, new ScoredPoint("18", 0.3f, null));
    assertThat(empty.text()).isNull();
    assertThat(empty.metadata()).isEqualTo(new JsonObject());
  }

  @Test
  @DisplayName("text over max_text_chars is cut and flagged, in the metadata too")
  void truncation() {
    String longText = "x".repeat(150);
    RetrievedChunk chunk = mapper.map(1, new ScoredPoint("1", 0.3f, new JsonObject().put("text", longText).put("chapter", "c")));
    assertThat(chunk.text()).hasSize(100);
    assertThat(chunk.truncated()).isTrue();
    assertThat(chunk.metadata().getString("text")).hasSize(100);
    assertThat(chunk.metadata().getString("chapter")).isEqualTo("c");

    RetrievedChunk exact = mapper.map(1, new ScoredPoint("2", 0.3f, new JsonObject().put("text", "y".repeat(100))));
    assertThat(exact.truncated()).isFalse();
  }

  @Test
  @DisplayName("scores read as the shortest decimal of Qdrant's float and ranks follow store order")
  void scoresAndRanks() {
    List<RetrievedChunk> chunks = mapper.map(List.of(
        new ScoredPoint("a", 0.89f, new JsonObject()), new ScoredPoint("b", 0.7f, new JsonObject())));
    assertThat(chunks).extracting(RetrievedChunk::rank).containsExactly(1, 2);
    assertThat(chunks).extracting(RetrievedChunk::score).containsExactly(0.89, 0.7);
  }
}
