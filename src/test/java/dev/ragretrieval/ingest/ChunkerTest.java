package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ChunkerTest {

  private static final Chunker.Limits LIMITS = new Chunker.Limits(300, 60, 1000);

  private static String sentences(int count, String word) {
    return IntStream.range(0, count).mapToObj(i -> "Sentence " + i + " talks about " + word + " at some length.")
        .collect(Collectors.joining(" "));
  }

  @Test
  @DisplayName("a short section is one chunk, blank sections none")
  void shortAndBlank() {
    Chunker chunker = new Chunker(LIMITS);
    assertThat(chunker.split("  A short text.  ")).containsExactly("A short text.");
    assertThat(chunker.split(" \n\n ")).isEmpty();
    assertThat(chunker.split(null)).isEmpty();
  }

  @Test
  @DisplayName("long text splits on boundaries, never past target + overlap, and each chunk starts with the end of the previous")
  void splitsWithOverlap() {
    String text = sentences(12, "robots") + "\n\n" + sentences(9, "sensors") + "\n\n" + sentences(15, "walking");
    List<String> chunks = new Chunker(LIMITS).split(text);
    assertThat(chunks).hasSizeGreaterThan(4);
    for (String chunk : chunks) {
      assertThat(chunk.length()).isLessThanOrEqualTo(300 + 60 + 2);
      assertThat(chunk).isNotBlank().doesNotStartWith(" ").endsWith(".");
    }
    for (int i = 1; i < chunks.size(); i++) {
      String previous = chunks.get(i - 1);
      String head = chunks.get(i).substring(0, 20);
      assertThat(previous.substring(previous.length() - 60 - 40)).as("overlap of chunk %d", i).contains(head);
    }
    // nothing lost: every sentence is in some chunk
    for (String sentence : text.split("(?<=\\.)\\s+")) {
      assertThat(chunks).anyMatch(c -> c.contains(sentence.strip()));
    }
  }

  @Test
  @DisplayName("code keeps its lines and their indentation: after a blank line, at a chunk's start, and cut"
      + " between lines when a block is longer than the target")
  void codeKeepsItsLines() {
    String method = "    def step(self, dt):\n        self.t += dt\n        return self.t\n";
    StringBuilder code = new StringBuilder("class Clock:\n");
    for (int i = 0; i < 12; i++) {
      code.append(method.replace("step", "step" + i)).append(i % 3 == 2 ? "\n" : "");
    }
    String text = sentences(3, "clocks") + "\n\n" + code + "\n\n" + sentences(2, "timers");
    List<String> chunks = new Chunker(LIMITS).split(text);
    assertThat(chunks).hasSizeGreaterThan(3);
    // every line of the code is whole, indentation and all, in some chunk, on a line of its own
    for (String line : code.toString().split("\n")) {
      if (!line.isBlank()) {
        assertThat(chunks).as(line).anyMatch(c -> c.lines().anyMatch(line::equals));
      }
    }
    // the lines after each blank line and at each chunk's start are still indented
    assertThat(chunks).filteredOn(c -> c.contains("def step")).allSatisfy(c ->
        assertThat(c.lines().filter(l -> l.contains("def step"))).allMatch(l -> l.startsWith("    def step")));
    assertThat(chunks).allSatisfy(c -> assertThat(c.length()).isLessThanOrEqualTo(300 + 60 + 2));
    assertThat(new Chunker(LIMITS).split("\n\n    indented();\n    again();\n")).containsExactly(
        "    indented();\n    again();");
  }

  @Test
  @DisplayName("a single word longer than the target is cut, and no chunk ever exceeds the hard cap")
  void hardCap() {
    String blob = "x".repeat(2500) + " " + "y".repeat(10);
    List<String> chunks = new Chunker(LIMITS).split(blob);
    assertThat(chunks).allSatisfy(c -> assertThat(c.length()).isLessThanOrEqualTo(1000));
    assertThat(String.join("", chunks).replace(" ", "")).contains("x".repeat(300));
    List<String> defaults = new Chunker().split("word ".repeat(20_000));
    assertThat(defaults).allSatisfy(c -> assertThat(c.length()).isLessThanOrEqualTo(10_000));
  }

  @Test
  @DisplayName("chunks carry the canonical payload, page-wide chunk indexes, deterministic UUID v3 ids and a"
      + " header of title > parent heading > heading")
  void payloadAndIds() {
    Page page = new Page("docs/m1/p1", "docs/m1/p1", "Page One", "m1", "Module 1", "markdown", List.of(
        new Page.Section(null, "Intro text."),
        new Page.Section("Nodes", sentences(20, "nodes")),
        new Page.Section("Names", "Nodes", "Each node has a unique name."),
        new Page.Section("Page One", "Nodes", "A heading that repeats the title is not said twice."),
        new Page.Section("Empty", " ")));
    List<Chunk> chunks = new Chunker(LIMITS).chunk(page);
    assertThat(chunks).hasSizeGreaterThan(2);
    List<Integer> indexes = new ArrayList<>();
    chunks.forEach(c -> indexes.add(c.chunkIndex()));
    assertThat(indexes).isEqualTo(IntStream.range(0, chunks.size()).boxed().toList());

    Chunk intro = chunks.get(0);
    assertThat(intro.payload().getString("text")).isEqualTo("Intro text.");
    assertThat(intro.payload().containsKey("section")).isFalse();
    Chunk second = chunks.get(1);
    assertThat(second.payload().getMap()).containsEntry("source_url", "docs/m1/p1").containsEntry("page_title", "Page One")
        .containsEntry("chapter", "m1").containsEntry("chapter_label", "Module 1").containsEntry("section", "Nodes")
        .containsEntry("chunk_index", 1).containsEntry("chunk_id", "docs/m1/p1#1")
        .containsEntry("document_id", "docs/m1/p1").containsEntry("source_type", "markdown");
    assertThat(second.embedText()).startsWith("Page One > Nodes\n\n");
    // an h3's chunk names the h2 above it too: "Names" alone says little
    Chunk names = chunks.get(chunks.size() - 2);
    assertThat(names.payload().getString("section")).isEqualTo("Names");
    assertThat(names.embedText()).isEqualTo("Page One > Nodes > Names\n\nEach node has a unique name.");
    assertThat(chunks.get(chunks.size() - 1).embedText()).startsWith("Page One > Nodes\n\nA heading");
    assertThat(second.pointId()).isEqualTo(Chunker.pointId("docs/m1/p1", 1))
        .isEqualTo(java.util.UUID.nameUUIDFromBytes("docs/m1/p1#1".getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString());
    assertThat(new Chunker(LIMITS).chunk(page)).extracting(Chunk::pointId)
        .isEqualTo(chunks.stream().map(Chunk::pointId).toList());
  }
}
