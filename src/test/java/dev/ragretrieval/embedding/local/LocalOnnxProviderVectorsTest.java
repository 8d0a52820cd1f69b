package dev.ragretrieval.embedding.local;

import static dev.ragretrieval.embedding.EmbeddingTestConfigs.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.ragretrieval.embedding.EmbeddingTestConfigs;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.embedding.Vectors;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class LocalOnnxProviderVectorsTest {

  @Test
  @Timeout(value = 3, timeUnit = TimeUnit.MINUTES)
  @DisplayName("documents, even concurrent ones, and a question asked alone get the vectors langchain4j's model gave them, which stored collections hold")
  void sameVectorsAsLangchain4j(Vertx vertx, VertxTestContext test) {
    EmbeddingModel langchain4j = new BgeSmallEnV15QuantizedEmbeddingModel(Runnable::run);
    LocalOnnxProvider local = new LocalOnnxProvider(vertx, EmbeddingTestConfigs.local(8), RagMetrics.detached());
    List<String> documents = List.of("Nodes publish and subscribe to topics.",
        "A launch file starts several nodes with their parameters. ".repeat(20),
        "The tf tree relates the frames of the robot. ".repeat(80)); // past 512 tokens
    List<String> questions = List.of("what is a topic", "how do I start two nodes at once", "what is tf");
    Future<List<float[]>> docs = local.embed(documents, InputType.SEARCH_DOCUMENT, in(Duration.ofMinutes(2)));
    // documents and questions at once: documents still run alone, the questions share runs
    List<Future<List<float[]>>> together = questions.stream()
        .map(q -> local.embed(List.of(q), InputType.SEARCH_QUERY, in(Duration.ofMinutes(2)))).toList();
    Future<List<List<float[]>>> alone = Future.all(docs, Future.all(together)).compose(done -> {
      Future<List<List<float[]>>> one = Future.succeededFuture(new java.util.ArrayList<>());
      for (String question : questions) {
        one = one.compose(all -> local.embed(List.of(question), InputType.SEARCH_QUERY, in(Duration.ofMinutes(2)))
            .map(vector -> {
              all.add(vector);
              return all;
            }));
      }
      return one;
    });
    alone.onComplete(test.succeeding(asked -> test.verify(() -> {
      for (int i = 0; i < documents.size(); i++) {
        assertThat(Vectors.cosine(docs.result().get(i), reference(langchain4j, documents.get(i))))
            .as("document %d", i).isGreaterThan(0.9999);
      }
      for (int i = 0; i < questions.size(); i++) {
        float[] expected = reference(langchain4j, LocalOnnxProvider.QUERY_PREFIX + questions.get(i));
        assertThat(Vectors.cosine(asked.get(i).get(0), expected)).as(questions.get(i)).isGreaterThan(0.9999);
        assertThat(Vectors.cosine(together.get(i).result().get(0), expected)).as(questions.get(i)).isGreaterThan(0.99);
      }
      local.close().onComplete(test.succeedingThenComplete());
    })));
  }

  private static float[] reference(EmbeddingModel model, String text) {
    return model.embed(TextSegment.from(text)).content().vector();
  }
}
