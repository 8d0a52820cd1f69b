package dev.ragretrieval.embedding.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.ragretrieval.embedding.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The batched encoder gives the vectors langchain4j's model gave, which stored collections hold. */
class BgeBatchEncoderTest {

  private static final double SAME = 0.9999;

  private static final List<String> QUERIES = List.of(
      "what is a ROS 2 node",
      "How do I write a launch file that starts two nodes with different parameters?",
      "SLAM",
      "Why does my robot's odometry drift when the wheels slip on a smooth floor, and how can I correct it?",
      "Isaac Sim vs Gazebo");

  private static final String PARAGRAPH = "A transform tree describes how every frame of a robot relates to "
      + "the others: the base link, each joint, the lidar and the cameras. Nodes publish transforms on /tf "
      + "and anyone can ask where a point seen by the camera lies in the map frame at a given time. ";

  private static EmbeddingModel langchain4j;
  private static BgeBatchEncoder encoder;

  @BeforeAll
  static void load() throws Exception {
    langchain4j = new BgeSmallEnV15QuantizedEmbeddingModel(Runnable::run);
    encoder = BgeBatchEncoder.shared();
  }

  @Test
  @DisplayName("short queries, with bge's instruction, get langchain4j's vectors, alone and in one call together")
  void shortQueries() throws Exception {
    List<String> queries = QUERIES.stream().map(q -> LocalOnnxProvider.QUERY_PREFIX + q).toList();
    List<float[]> together = encoder.embed(queries);
    for (int i = 0; i < queries.size(); i++) {
      float[] reference = reference(queries.get(i));
      assertThat(Vectors.cosine(encoder.embed(List.of(queries.get(i))).get(0), reference)).as(queries.get(i))
          .isGreaterThan(SAME);
      assertThat(Vectors.cosine(together.get(i), reference)).as(queries.get(i)).isGreaterThan(SAME);
      assertThat(Vectors.norm(together.get(i))).isCloseTo(1.0, within(1e-5));
    }
  }

  @Test
  @DisplayName("in a call of mixed lengths, every text gets the vector it gets alone from langchain4j")
  void mixedLengths() throws Exception {
    List<String> texts = new ArrayList<>(QUERIES);
    texts.add(PARAGRAPH);
    texts.add(PARAGRAPH.repeat(3));
    texts.add(PARAGRAPH.repeat(12)); // past 512 tokens
    texts.add("ok");
    List<float[]> together = encoder.embed(texts);
    assertThat(together).hasSize(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      assertThat(Vectors.cosine(together.get(i), reference(texts.get(i)))).as("text %d", i).isGreaterThan(SAME);
    }
  }

  @Test
  @DisplayName("a document longer than 512 tokens gets langchain4j's vector, which reads its first 510 tokens only")
  void longDocument() throws Exception {
    String document = PARAGRAPH.repeat(12);
    String differentTail = PARAGRAPH.repeat(10) + "Preheat the oven and knead the dough for ten minutes. ".repeat(60);
    float[] vector = encoder.embed(List.of(document)).get(0);
    assertThat(Vectors.cosine(vector, reference(document))).isGreaterThan(SAME);
    assertThat(Vectors.cosine(encoder.embed(List.of(differentTail)).get(0), vector)).isGreaterThan(SAME);
  }

  @Test
  @DisplayName("several rows per session run (questions that wait together) move vectors a little: the model quantizes per tensor")
  void sharedRunsDrift() throws Exception {
    BgeBatchEncoder batched = new BgeBatchEncoder(BgeBatchEncoder.sessionOptions(1), 32);
    List<String> texts = new ArrayList<>(QUERIES);
    texts.add(PARAGRAPH);
    List<float[]> together = batched.embed(texts);
    for (int i = 0; i < texts.size(); i++) {
      assertThat(Vectors.cosine(together.get(i), reference(texts.get(i)))).as("text %d", i).isGreaterThan(0.99);
    }
  }

  @Test
  @DisplayName("a blank text is refused, as langchain4j refuses it (the provider sends a placeholder instead)")
  void blankRefused() {
    assertThatThrownBy(() -> encoder.embed(List.of("   "))).isInstanceOf(IllegalArgumentException.class);
  }

  private static float[] reference(String text) {
    return langchain4j.embed(TextSegment.from(text)).content().vector();
  }
}
