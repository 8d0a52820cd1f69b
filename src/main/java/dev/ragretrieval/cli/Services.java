package dev.ragretrieval.cli;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.app.Components;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.ingest.SampleBook;
import dev.ragretrieval.observability.Logging;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.search.VectorStores;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The parts of the service a one-shot command needs (configuration, embedding, vector store),
 * started without HTTP and closed when the command ends. Commands run on the main thread and wait
 * here for futures; the event loops are never blocked.
 */
final class Services implements AutoCloseable {

  static final Duration STARTUP = Duration.ofMinutes(10);

  final Vertx vertx;
  final AppConfig config;
  private Components parts;
  /** The read-only opening of the embedded store, for commands that only read; null otherwise. */
  private VectorStore readOnlyStore;

  private Services(Vertx vertx, AppConfig config) {
    this.vertx = vertx;
    this.config = config;
  }

  /** Starts embedding and the store; with {@code sampleBook}, an empty embedded store gets the book. */
  static Services start(CliEnvironment cli, boolean sampleBook) {
    return start(cli, sampleBook, false);
  }

  /**
   * For commands that only read (query, eval): the embedded store opens read-only, so they run
   * beside a server or an ingest on the same RAG_DATA_DIR and see each commit as it lands. An empty
   * store still gets the sample book, as a first {@code query} expects; that one write waits for
   * no lock held long (writers hold the lock only while they write). {@code adjust} as below.
   */
  static Services startReadOnly(CliEnvironment cli, UnaryOperator<AppConfig> adjust) {
    return start(cli, true, true, adjust);
  }

  /** {@code readOnly}: the embedded store refuses writes once the sample book (if asked) is in. */
  static Services start(CliEnvironment cli, boolean sampleBook, boolean readOnly) {
    return start(cli, sampleBook, readOnly, UnaryOperator.identity());
  }

  /** {@code adjust}: what the command changes in, or checks against, the loaded settings before anything starts. */
  static Services start(CliEnvironment cli, boolean sampleBook, boolean readOnly, UnaryOperator<AppConfig> adjust) {
    Vertx vertx = Vertx.vertx();
    Services services = null;
    try {
      AppConfig config = adjust.apply(await(ConfigLoader.load(vertx, cli.env()), Duration.ofSeconds(30)));
      // one-shot commands keep stdout for their answer: only warnings unless asked otherwise, on stderr
      String level = cli.env().containsKey("RAG_LOG_LEVEL") ? config.logging().level() : "WARN";
      Logging.configure(new AppConfig.Logging(level, config.logging().format(), config.logging().logQueryText()));
      Logging.consoleToStderr(true);
      services = new Services(vertx, config);
      // the same parts as serve; a one-shot command serves no /metrics
      services.parts = await(Components.start(vertx, config, RagMetrics.detached()), STARTUP);
      if (sampleBook) {
        await(SampleBook.loadIfEmpty(vertx, config, services.store(), services.embeddings()::embed), STARTUP)
            .ifPresent(s -> cli.err().println(String.format(Locale.ROOT,
                "loaded sample book: %d pages, %d chunks in %.1fs", s.pages(), s.chunks(), s.seconds())));
      }
      if (readOnly && config.qdrant().embedded()) {
        // searched through a read-only opening: nothing this command does can take the write lock
        services.readOnlyStore = await(VectorStores.create(vertx, config, RagMetrics.detached(), true),
            Duration.ofSeconds(30));
      }
      return services;
    } catch (RuntimeException e) {
      if (services != null) {
        services.close();
      } else {
        vertx.close();
      }
      throw e;
    }
  }

  EmbeddingClient embeddings() {
    return parts.embeddings();
  }

  VectorStore store() {
    return readOnlyStore != null ? readOnlyStore : parts.store();
  }

  /** Waits for a future from a non-event-loop thread; its failure is rethrown as it is. */
  static <T> T await(Future<T> future, Duration timeout) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException runtime ? runtime : ServiceException.from(cause);
    } catch (TimeoutException e) {
      throw new ServiceException(ErrorCode.TIMEOUT, "gave up waiting after " + timeout.toSeconds() + "s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceException(ErrorCode.TIMEOUT, "interrupted");
    }
  }

  @Override
  public void close() {
    try {
      await(readOnlyStore == null ? Future.succeededFuture() : readOnlyStore.close(), Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      // best effort, as below
    }
    try {
      await(parts == null ? Future.succeededFuture() : parts.close(), Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      // closing is best effort: the process ends next
    }
    // closed from this thread, not from a callback on one of the event loops being shut down
    try {
      await(vertx.close(), Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      // best effort, as above
    }
    // a command run in-process (tests) hands the console back to stdout, logback.xml's target
    Logging.consoleToStderr(false);
  }
}
