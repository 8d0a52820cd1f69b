package dev.ragretrieval.ingest;

import dev.ragretrieval.upstream.Deadline;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.embedding.EmbeddingVerticle;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The embedded default end to end: the bundled book loaded with the local bge-small model into
 * the Lucene store, then real semantic questions. One load is shared by the whole class.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 5, timeUnit = TimeUnit.MINUTES)
class SampleBookSearchTest {

  private static Path dataDir;
  private static EmbeddingProvider provider;
  private static VectorStore store;
  private static RetrievalService service;
  private static Optional<Ingestor.Summary> loaded;

  @BeforeAll
  static void loadBook(Vertx vertx, VertxTestContext test) throws Exception {
    dataDir = Files.createTempDirectory("rag-sample-book");
    AppConfig config = ConfigLoader.fromJson(new JsonObject(),
        Map.of("RAG_DATA_DIR", dataDir.toString(), "EMBEDDING_PROVIDER", "local"));
    vertx.executeBlocking(() -> EmbeddingProviders.create(vertx, config.embedding(), dev.ragretrieval.observability.RagMetrics.detached()))
        .compose(created -> {
          provider = created;
          return EmbeddingVerticle.deploy(vertx, created);
        })
        .compose(id -> {
          EmbeddingClient client = new EmbeddingClient(vertx);
          store = new EmbeddedVectorStore(vertx, config.store().dataDir(), dev.ragretrieval.observability.RagMetrics.detached());
          service = new RetrievalService(client, store, config);
          return SampleBook.loadIfEmpty(vertx, config, store, client::embed)
              .compose(first -> SampleBook.loadIfEmpty(vertx, config, store, client::embed).map(second -> {
                loaded = first;
                test.verify(() -> assertThat(second).as("a loaded store is not loaded again").isEmpty());
                return first;
              }));
        })
        .onComplete(test.succeeding(summary -> {
          summary.ifPresent(s -> System.out.println(s.describe()));
          test.completeNow();
        }));
  }

  @AfterAll
  static void close(VertxTestContext test) {
    Future.join(store.close(), provider.close()).onComplete(test.succeeding(done -> {
      try (var paths = Files.walk(dataDir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (java.io.IOException e) {
        test.failNow(e);
        return;
      }
      test.completeNow();
    }));
  }

  private static Future<RetrievalResult> ask(String question, JsonObject extra) {
    JsonObject body = new JsonObject().put("query", question).put("top_k", 5).mergeIn(extra);
    return service.validate(body)
        .compose(request -> service.retrieve(request, UUID.randomUUID().toString(), Deadline.in(java.time.Duration.ofMillis(60_000))));
  }

  private static void assertFirst(RetrievalResult result, String sourceUrl, String section) {
    assertThat(result.results()).isNotEmpty();
    assertThat(result.results().get(0).sourceUrl()).as(result.query()).isEqualTo(sourceUrl);
    assertThat(result.results().get(0).section()).as(result.query()).isEqualTo(section);
    assertThat(result.results().get(0).score()).isBetween(0.3, 1.0);
  }

  @Test
  @DisplayName("an empty embedded store is loaded with the whole sample book, once")
  void loadedOnce(VertxTestContext test) {
    test.verify(() -> {
      assertThat(loaded).isPresent();
      assertThat(loaded.get().pages()).isEqualTo(21);
      assertThat(loaded.get().ok()).isTrue();
    });
    store.collectionInfo("textbook_chunks", Deadline.inMillis(30_000)).onComplete(test.succeeding(info -> test.verify(() -> {
      assertThat(info.pointsCount()).isEqualTo(loaded.get().chunks());
      assertThat(info.vectorSize()).isEqualTo(384);
      test.completeNow();
    })));
  }

  @Test
  @Timeout(value = 2, timeUnit = TimeUnit.MINUTES)
  @DisplayName("the README's test questions find their section first with the local model")
  void questionsFindTheirSection(VertxTestContext test) {
    ask("What is the zero moment point?", new JsonObject())
        .compose(r -> {
          test.verify(() -> assertFirst(r, "docs/module-4-humanoid-control/02-bipedal-locomotion", "The Zero Moment Point"));
          return ask("What is domain randomization?", new JsonObject());
        })
        .compose(r -> {
          test.verify(() -> assertFirst(r, "docs/module-2-simulation/04-sim-to-real", "Domain Randomization"));
          return ask("What does transient local durability do?", new JsonObject());
        })
        .compose(r -> {
          test.verify(() -> assertFirst(r, "docs/module-1-ros2/05-qos-profiles", "Durability: Volatile versus Transient Local"));
          return ask("How does URDF describe a robot?", new JsonObject());
        })
        .onComplete(test.succeeding(r -> test.verify(() -> {
          assertFirst(r, "docs/module-2-simulation/01-urdf-xacro", "Links and Joints in URDF");
          test.completeNow();
        })));
  }

  @Test
  @Timeout(value = 2, timeUnit = TimeUnit.MINUTES)
  @DisplayName("a chapter filter keeps every result inside that module folder")
  void chapterFilter(VertxTestContext test) {
    ask("How does a robot keep its balance while walking?", new JsonObject()
        .put("filter", new JsonObject().put("chapter", "module-1-ros2")).put("score_threshold", 0.0))
        .onComplete(test.succeeding(r -> test.verify(() -> {
          assertThat(r.results()).hasSize(5).allSatisfy(c -> assertThat(c.chapter()).isEqualTo("module-1-ros2"));
          test.completeNow();
        })));
  }
}
