package dev.ragretrieval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ContextAssembler: the LLM context format of docs/API.md section 5")
class ContextAssemblerTest {

  private final ContextAssembler assembler = new ContextAssembler();

  private static RetrievedChunk chunk(int rank, double score, String url, String chapter, String section, String text) {
    return new RetrievedChunk(rank, "id" + rank, "c" + rank, text, score, url, null, chapter, section, null,
        new JsonObject(), false);
  }

  @Test
  @DisplayName("blocks have the exact format and are separated by one blank line")
  void exactFormat() {
    AssembledContext context = assembler.assemble("qid", "what is ROS 2", List.of(
        chunk(1, 0.8912, "https://example.org/docs/module-1/ch01-intro-ros2", "module-1-ros2", "Introduction",
            "ROS 2 is the second generation of the Robot Operating System..."),
        chunk(2, 0.5, null, null, "Topics", "Topics carry messages."),
        chunk(3, 0.456, "https://example.org/b", "module-2", null, "Gazebo."),
        chunk(4, 0.3, null, null, null, "Bare.")), 12000);

    assertThat(context.formattedText()).isEqualTo(
        "[Result 1] Score: 0.89\n"
            + "Source: https://example.org/docs/module-1/ch01-intro-ros2\n"
            + "Chapter: module-1-ros2 | Section: Introduction\n"
            + "---\n"
            + "ROS 2 is the second generation of the Robot Operating System...\n"
            + "\n"
            + "[Result 2] Score: 0.50\n"
            + "Section: Topics\n"
            + "---\n"
            + "Topics carry messages.\n"
            + "\n"
            + "[Result 3] Score: 0.46\n"
            + "Source: https://example.org/b\n"
            + "Chapter: module-2\n"
            + "---\n"
            + "Gazebo.\n"
            + "\n"
            + "[Result 4] Score: 0.30\n"
            + "---\n"
            + "Bare.");
    assertThat(context.chunkCount()).isEqualTo(4);
    assertThat(context.totalChars()).isEqualTo(context.formattedText().length());
    assertThat(context.queryId()).isEqualTo("qid");
    assertThat(context.query()).isEqualTo("what is ROS 2");
  }

  @Test
  @DisplayName("blocks are added while the total stays within max_context_chars")
  void budget() {
    List<RetrievedChunk> chunks = List.of(
        chunk(1, 0.9, null, null, null, "a".repeat(40)),
        chunk(2, 0.8, null, null, null, "b".repeat(40)),
        chunk(3, 0.7, null, null, null, "c"));
    int first = ContextAssembler.block(chunks.get(0)).length();
    int second = ContextAssembler.block(chunks.get(1)).length();

    AssembledContext exactlyTwo = assembler.assemble("q", "q", chunks, first + 2 + second);
    assertThat(exactlyTwo.chunkCount()).isEqualTo(2);
    assertThat(exactlyTwo.totalChars()).isEqualTo(first + 2 + second);

    AssembledContext one = assembler.assemble("q", "q", chunks, first + 2 + second - 1);
    assertThat(one.chunkCount()).isEqualTo(1);
    assertThat(one.results()).extracting(RetrievedChunk::rank).containsExactly(1);
    assertThat(one.totalChars()).isLessThanOrEqualTo(first + 2 + second - 1);

    AssembledContext none = assembler.assemble("q", "q", chunks, first - 1);
    assertThat(none.chunkCount()).isZero();
    assertThat(none.formattedText()).isEmpty();
    assertThat(none.sources()).isEmpty();
  }

  @Test
  @DisplayName("sources are unique and in rank order")
  void uniqueSources() {
    AssembledContext context = assembler.assemble("q", "q", List.of(
        chunk(1, 0.9, "https://b", null, null, "1"),
        chunk(2, 0.8, "https://a", null, null, "2"),
        chunk(3, 0.7, "https://b", null, null, "3"),
        chunk(4, 0.6, null, null, null, "4")), 12000);
    assertThat(context.sources()).containsExactly("https://b", "https://a");
  }
}
