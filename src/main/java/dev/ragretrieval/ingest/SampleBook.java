package dev.ragretrieval.ingest;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.VectorStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bundled sample textbook (src/main/resources/sample-book), loaded into an empty embedded
 * store so a new user has something to search at once. A jar cannot list its folders, so
 * {@code index.txt} names every page.
 */
public final class SampleBook {

  private static final Logger LOG = LoggerFactory.getLogger(SampleBook.class);
  private static final String ROOT = "sample-book/";

  private SampleBook() {}

  /** The book's pages, read from the classpath (blocking). */
  public static List<Page> pages() {
    String index = resource("index.txt");
    if (index == null) {
      throw new UncheckedIOException(new IOException("the sample book is missing from the classpath"));
    }
    List<String> paths = index.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    return MarkdownFolder.read(paths, SampleBook::resource, null);
  }

  /**
   * In embedded mode with {@code store.load_sample_book} on, ingests the book when the default
   * collection is missing or empty. Empty when nothing needed loading.
   */
  public static Future<Optional<Ingestor.Summary>> loadIfEmpty(Vertx vertx, AppConfig config, VectorStore store,
      Embedder embedder) {
    if (!config.qdrant().embedded() || !config.store().loadSampleBook()) {
      return Future.succeededFuture(Optional.empty());
    }
    String collection = config.qdrant().collection();
    return Ingestor.pointsCount(store, collection)
        .compose(count -> count > 0 ? Future.succeededFuture(Optional.<Ingestor.Summary>empty())
            : load(vertx, config, store, embedder).map(Optional::of));
  }

  private static Future<Ingestor.Summary> load(Vertx vertx, AppConfig config, VectorStore store, Embedder embedder) {
    LOG.info("loading the sample book into collection '{}'", config.qdrant().collection());
    Ingestor ingestor = new Ingestor(vertx, store, embedder, Progress.log(LOG, "sample book"));
    Ingestor.Options options = Ingestor.Options.of(config.qdrant().collection(), false,
        config.retrieval().filterKeys());
    // a folder it cannot write fails here, before the book is embedded for nothing
    return store.checkWritable(config.qdrant().collection())
        .compose(writable -> vertx.executeBlocking(SampleBook::pages, false))
        .compose(pages -> ingestor.ingest(pages, options))
        .compose(summary -> {
          if (!summary.ok()) {
            return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR,
                "loading the sample book failed: " + String.join("; ", summary.errors())));
          }
          LOG.info(String.format(Locale.ROOT, "loaded sample book: %d pages, %d chunks in %.1fs",
              summary.pages(), summary.chunks(), summary.seconds()));
          return Future.succeededFuture(summary);
        });
  }

  private static String resource(String relative) {
    try (InputStream in = SampleBook.class.getClassLoader().getResourceAsStream(ROOT + relative)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
