package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A RAG_DATA_DIR the embedded store cannot use: the sample book fails at once, saying which folder and why. */
@ExtendWith(VertxExtension.class)
class SampleBookUnwritableTest {

  @Test
  @DisplayName("a folder that cannot be created (the whole book was embedded before the first write failed):"
      + " nothing is embedded, and the error names the folder")
  void folderThatCannotBeCreated(Vertx vertx, VertxTestContext test) {
    // root may write anywhere on a disk; /proc refuses new folders to everyone
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs Linux's /proc");
    Path dataDir = Path.of("/proc/self/rag-retrieval-data");
    load(vertx, test, dataDir, message -> assertThat(message)
        .isEqualTo("cannot write the embedded store's folder " + dataDir.resolve("collections")
            + " (RAG_DATA_DIR): no such file or folder: " + dataDir));
  }

  @Test
  @DisplayName("a file where the folder should be: the read fails, naming the file and what is wrong, no class name")
  void fileInTheWay(Vertx vertx, VertxTestContext test, @TempDir Path temp) throws Exception {
    Path file = Files.writeString(temp.resolve("not-a-folder"), "x");
    load(vertx, test, file.resolve("data"), message -> assertThat(message)
        .startsWith("the embedded vector store cannot read or write its files (RAG_DATA_DIR): " + file.resolve("data"))
        .endsWith(": Not a directory"));
  }

  private static void load(Vertx vertx, VertxTestContext test, Path dataDir, Consumer<String> message) {
    AppConfig config = ConfigLoader.fromJson(new JsonObject(),
        Map.of("RAG_DATA_DIR", dataDir.toString(), "EMBEDDING_PROVIDER", "local"));
    EmbeddedVectorStore store = new EmbeddedVectorStore(vertx, config.store().dataDir(), RagMetrics.detached());
    AtomicInteger embedCalls = new AtomicInteger();
    Embedder embedder = (texts, type, deadline) -> {
      embedCalls.incrementAndGet();
      return Future.failedFuture("not expected");
    };
    SampleBook.loadIfEmpty(vertx, config, store, embedder)
        .eventually(store::close)
        .onComplete(test.failing(failure -> test.verify(() -> {
          message.accept(ServiceException.from(failure).getMessage());
          assertThat(embedCalls).hasValue(0);
          test.completeNow();
        })));
  }
}
