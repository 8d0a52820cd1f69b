package dev.ragretrieval.embedding;

import static dev.ragretrieval.embedding.EmbeddingTestConfigs.in;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.local.LocalOnnxProvider;
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
class LocalOnnxProviderTest {

  private static final AppConfig.Embedding CONFIG = EmbeddingTestConfigs.local(32);

  @Test
  @Timeout(value = 3, timeUnit = TimeUnit.MINUTES)
  @DisplayName("bge-small gives 384-dimensional unit vectors and ranks a paraphrase above an unrelated sentence")
  void embedsSemantically(Vertx vertx, VertxTestContext test) {
    LocalOnnxProvider local = new LocalOnnxProvider(vertx, CONFIG, RagMetrics.detached());
    List<String> texts = List.of(
        "ROS 2 nodes communicate over topics",
        "Nodes in ROS 2 exchange messages through topics",
        "The recipe needs two cups of flour");
    local.embed(texts, InputType.SEARCH_DOCUMENT, in(Duration.ofMinutes(2)))
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          assertThat(local.dimension()).isEqualTo(384);
          assertThat(vectors).hasSize(3);
          for (float[] v : vectors) {
            assertThat(v).hasSize(384);
            assertThat(Vectors.norm(v)).isCloseTo(1.0, within(1e-4));
          }
          double paraphrase = Vectors.cosine(vectors.get(0), vectors.get(1));
          double unrelated = Vectors.cosine(vectors.get(0), vectors.get(2));
          assertThat(paraphrase).isGreaterThan(unrelated + 0.2);
          local.close().onComplete(test.succeedingThenComplete());
        })));
  }

  @Test
  @Timeout(value = 3, timeUnit = TimeUnit.MINUTES)
  @DisplayName("queries carry bge's instruction prefix: a query vector differs from the same text as a document and is closer to its answer")
  void queriesUseInstruction(Vertx vertx, VertxTestContext test) {
    LocalOnnxProvider local = new LocalOnnxProvider(vertx, CONFIG, RagMetrics.detached());
    String question = "How do ROS 2 nodes talk to each other?";
    local.embed(List.of(question), InputType.SEARCH_QUERY, in(Duration.ofMinutes(2)))
        .compose(query -> local.embed(
                List.of(question, "Nodes publish and subscribe to topics to exchange messages.",
                    "Preheat the oven before baking bread."),
                InputType.SEARCH_DOCUMENT, in(Duration.ofMinutes(2)))
            .map(docs -> List.of(query.get(0), docs.get(0), docs.get(1), docs.get(2))))
        .onComplete(test.succeeding(v -> test.verify(() -> {
          assertThat(v.get(0)).isNotEqualTo(v.get(1));
          assertThat(Vectors.cosine(v.get(0), v.get(2))).isGreaterThan(Vectors.cosine(v.get(0), v.get(3)));
          local.close().onComplete(test.succeedingThenComplete());
        })));
  }

  @Test
  @Timeout(value = 3, timeUnit = TimeUnit.MINUTES)
  @DisplayName("questions waiting together share model runs (at most batch_size texts each); each vector stays within cosine 0.99 of its vector alone")
  void batchesWaitingQuestions(Vertx vertx, VertxTestContext test) {
    askTogether(vertx, test, 4, 0.99);
  }

  @Test
  @Timeout(value = 3, timeUnit = TimeUnit.MINUTES)
  @DisplayName("with batch_size 1 every question runs alone: a question asked with others gets exactly its vector alone")
  void batchSizeOneIsExact(Vertx vertx, VertxTestContext test) {
    askTogether(vertx, test, 1, 0.9999);
  }

  /** Ten questions alone, then all at once; runs per turn and vectors against the ones alone. */
  private static void askTogether(Vertx vertx, VertxTestContext test, int batchSize, double leastCosine) {
    RagMetrics metrics = RagMetrics.detached();
    LocalOnnxProvider local = new LocalOnnxProvider(vertx, EmbeddingTestConfigs.local(batchSize), metrics);
    List<String> questions = List.of("what is a ROS 2 node", "how do topics work", "what is SLAM",
        "how does a robot localise", "what is a URDF file", "how are services called", "what is Gazebo",
        "what is a launch file", "how do actions differ from services", "what is Isaac Sim");
    // one question alone first: the model is loaded and each later vector has a reference
    Future<List<float[]>> alone = Future.succeededFuture(List.of());
    for (String question : questions) {
      alone = alone.compose(done -> local.embed(List.of(question), InputType.SEARCH_QUERY, in(Duration.ofMinutes(2)))
          .map(v -> {
            List<float[]> all = new java.util.ArrayList<>(done);
            all.add(v.get(0));
            return all;
          }));
    }
    alone.compose(references -> {
      long runsBefore = runs(metrics);
      List<Future<List<float[]>>> together = questions.stream()
          .map(q -> local.embed(List.of(q), InputType.SEARCH_QUERY, in(Duration.ofMinutes(2)))).toList();
      return Future.all(together).map(all -> {
        test.verify(() -> {
          long runs = runs(metrics) - runsBefore;
          if (batchSize == 1) {
            assertThat(runs).as("model turns for %d concurrent questions", questions.size()).isEqualTo(questions.size());
          } else {
            assertThat(runs).as("model turns for %d concurrent questions", questions.size())
                .isLessThan(questions.size()).isGreaterThanOrEqualTo((questions.size() + batchSize - 1) / batchSize);
          }
          boolean anyMoved = false;
          for (int i = 0; i < questions.size(); i++) {
            float[] batched = together.get(i).result().get(0);
            double cosine = Vectors.cosine(batched, references.get(i));
            assertThat(cosine).as(questions.get(i)).isGreaterThan(leastCosine);
            anyMoved |= cosine < 0.9999;
          }
          // shared runs are real: some question's vector moved with its company (none may when alone)
          assertThat(anyMoved).isEqualTo(batchSize > 1);
          assertThat(metrics.registry().find("rag_local_embedding_batch_texts").summary().max()).isLessThanOrEqualTo(batchSize);
        });
        return all;
      });
    }).eventually(local::close).onComplete(test.succeedingThenComplete());
  }

  private static long runs(RagMetrics metrics) {
    var summary = metrics.registry().find("rag_local_embedding_batch_texts").summary();
    return summary == null ? 0 : summary.count();
  }
}
