package dev.ragretrieval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ResultJson: a chunk's text is escaped once and written twice, as the payload has it")
class ResultJsonTest {

  /** Quotes, a backslash, control characters, accents, a character outside the BMP. */
  private static final String TEXT = "He said \"é\\è\"\n\tthen\u0001 left 😀 — done";

  @Test
  @DisplayName("text and metadata read back as the strings they were, field for field")
  void roundTrip() {
    JsonObject payload = new JsonObject().put("text", TEXT).put("source_url", "https://x/\"a\"")
        .put("chunk_index", 3).put("tags", new JsonArray().add("a\nb").add(TEXT)).put("nested", new JsonObject().put("text", TEXT))
        .putNull("none");
    RetrievedChunk chunk = new RetrievedChunk(1, "id-1", "c#1", TEXT, 0.5, "https://x/\"a\"", "T", null, "S", 3, payload, false);

    JsonObject written = ResultJson.chunk(chunk);

    assertThat(written.getString("text")).isEqualTo(TEXT);
    assertThat(written.getJsonObject("metadata")).isEqualTo(payload);
    assertThat(written.getJsonObject("metadata").fieldNames()).containsExactlyElementsOf(payload.fieldNames());
  }

  @Test
  @DisplayName("the same bytes as a generator writing each string itself")
  void sameBytes() {
    JsonObject payload = new JsonObject().put("chunk_id", "c#1").put("text", TEXT).put("n", 1.5);
    RetrievedChunk chunk = new RetrievedChunk(2, "id-2", "c#1", TEXT, 0.25, null, null, null, null, null, payload, false);

    String written = ResultJson.encode(json -> ResultJson.chunk(json, chunk)).toString();

    String text = io.vertx.core.json.Json.encode(TEXT);
    assertThat(written).contains("\"text\":" + text + ",\"score\"")
        .contains("\"metadata\":{\"chunk_id\":\"c#1\",\"text\":" + text + ",\"n\":1.5}");
  }

  @Test
  @DisplayName("a chunk without text writes null and leaves the metadata as it is")
  void noText() {
    JsonObject payload = new JsonObject().put("title", "x");
    RetrievedChunk chunk = new RetrievedChunk(1, "id", "id", null, 0.1, null, null, null, null, null, payload, false);

    JsonObject written = ResultJson.chunk(chunk);

    assertThat(written.containsKey("text")).isTrue();
    assertThat(written.getValue("text")).isNull();
    assertThat(written.getJsonObject("metadata")).isEqualTo(payload);
  }
}
