package dev.ragretrieval.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.VectorStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(VertxExtension.class)
@DisplayName("Readiness asks the store twice at once: one node that holds the call does not take it DOWN")
class ReadinessProbeTest {

  @Test
  @DisplayName("the first call hangs (a node catching up after a restart), the second answers: UP, at once")
  void oneCallHangs(Vertx vertx, VertxTestContext test, @TempDir Path dataDir) {
    AppConfig config = config(dataDir);
    List<Integer> calls = new CopyOnWriteArrayList<>();
    VectorStore store = store(calls, n -> n == 0 ? Promise.<CollectionInfo>promise().future()
        : Future.succeededFuture(new CollectionInfo(config.qdrant().collection(), config.embedding().dimension(), 12, false)));
    long started = System.nanoTime();
    inContext(vertx, () -> readiness(vertx, store, config).check())
        .onComplete(test.succeeding(report -> test.verify(() -> {
          assertThat(calls).containsExactly(0, 1);
          assertThat(report.checks().getJsonObject(0).getString("status")).isEqualTo("UP");
          assertThat(report.checks().getJsonObject(1).getLong("points")).isEqualTo(12L);
          // the answer did not wait for the hanging call's timeout
          assertThat(System.nanoTime() - started).isLessThan(1_500_000_000L);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("both calls hang: DOWN, the store did not answer within the probe's 2000 ms")
  void bothHang(Vertx vertx, VertxTestContext test, @TempDir Path dataDir) {
    AppConfig config = config(dataDir);
    List<Integer> calls = new CopyOnWriteArrayList<>();
    VectorStore store = store(calls, n -> Promise.<CollectionInfo>promise().future());
    inContext(vertx, () -> readiness(vertx, store, config).check())
        .onComplete(test.succeeding(report -> test.verify(() -> {
          assertThat(report.up()).isFalse();
          assertThat(report.reason()).isEqualTo("the vector store did not answer within 2000 ms");
          assertThat(calls).containsExactly(0, 1);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a missing collection whose sample book failed at start-up: DOWN, and the reason says why")
  void sampleBookFailed(Vertx vertx, VertxTestContext test, @TempDir Path dataDir) {
    AppConfig config = config(dataDir);
    VectorStore store = store(new CopyOnWriteArrayList<>(), n -> Future.failedFuture(new ServiceException(
        ErrorCode.COLLECTION_NOT_FOUND, "collection 'textbook_chunks' does not exist")));
    Readiness readiness = readiness(vertx, store, config);
    inContext(vertx, readiness::check)
        .compose(before -> {
          test.verify(() -> assertThat(before.reason()).isEqualTo("collection 'textbook_chunks' does not exist"));
          readiness.sampleBookFailed("cannot write the embedded store's folder /data/collections (RAG_DATA_DIR)");
          return inContext(vertx, readiness::check);
        })
        .onComplete(test.succeeding(report -> test.verify(() -> {
          assertThat(report.up()).isFalse();
          assertThat(report.reason()).isEqualTo("collection 'textbook_chunks' does not exist (the sample book was not"
              + " loaded: cannot write the embedded store's folder /data/collections (RAG_DATA_DIR))");
          test.completeNow();
        })));
  }

  private static AppConfig config(Path dataDir) {
    return ConfigLoader.fromJson(new JsonObject(),
        Map.of("RAG_DATA_DIR", dataDir.toString(), "EMBEDDING_PROVIDER", "local"));
  }

  private static Readiness readiness(Vertx vertx, VectorStore store, AppConfig config) {
    return new Readiness(store, EmbeddingProviders.create(vertx, config.embedding(), RagMetrics.detached()), config);
  }

  /** A store that answers collectionInfo call n with {@code answers.apply(n)}; anything else is not expected. */
  private static VectorStore store(List<Integer> calls, IntFunction<Future<CollectionInfo>> answers) {
    return (VectorStore) Proxy.newProxyInstance(VectorStore.class.getClassLoader(), new Class<?>[] {VectorStore.class},
        (proxy, method, args) -> {
          if (method.getName().equals("collectionInfo")) {
            int n = calls.size();
            calls.add(n);
            return answers.apply(n);
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  /** The check as the HTTP handler runs it: on an event loop. */
  private static <T> Future<T> inContext(Vertx vertx, java.util.function.Supplier<Future<T>> call) {
    Promise<T> result = Promise.promise();
    vertx.runOnContext(ignored -> call.get().onComplete(result));
    return result.future();
  }
}
