package dev.ragretrieval.embedding.local;

import dev.ragretrieval.upstream.Deadline;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.embedding.Vectors;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * bge-small-en-v1.5 (quantized ONNX, 384 dimensions) running in process, from the langchain4j
 * jar on Maven Central. The model loads once, lazily, on a worker thread; inference runs on a
 * dedicated worker pool sized to the processors, never on an event loop. Vectors are L2-normalised.
 *
 * <p>Natives: DJL's tokenizer unpacks under {@code DJL_CACHE_DIR} (system property or env; default
 * {@code ~/.djl.ai}) and onnxruntime under {@code java.io.tmpdir}. When neither DJL variable is set
 * and the home folder is not writable (read-only containers), the cache moves under the temp dir.
 */
public final class LocalOnnxProvider implements EmbeddingProvider {

  public static final int DIMENSION = 384;

  /** bge's instruction for queries; documents are embedded as they are. */
  static final String QUERY_PREFIX = "Represent this sentence for searching relevant passages: ";

  private static final Logger LOG = LoggerFactory.getLogger(LocalOnnxProvider.class);

  private final String model;
  private final int maxTextsPerCall;
  private final WorkerExecutor workers;
  private Future<EmbeddingModel> loaded;

  public LocalOnnxProvider(Vertx vertx, AppConfig.Local config) {
    this.model = config.model();
    this.maxTextsPerCall = config.maxTextsPerCall();
    if (config.dimension() != DIMENSION) {
      LOG.warn("embedding.local.dimension is {} but {} gives {}-dimensional vectors; using {}",
          config.dimension(), config.model(), DIMENSION, DIMENSION);
    }
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    // loading the model takes seconds: allow it without blocked-thread warnings
    this.workers = vertx.createSharedWorkerExecutor("rag-local-embedding", threads, 5, TimeUnit.MINUTES);
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public int dimension() {
    return DIMENSION;
  }

  @Override
  public int maxTextsPerCall() {
    return maxTextsPerCall;
  }

  @Override
  public Future<List<float[]>> embed(List<String> texts, InputType inputType, Deadline deadline) {
    if (texts.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    long started = System.nanoTime();
    Future<List<float[]>> result = load().compose(embedder -> workers.executeBlocking(() -> {
      // queued work whose caller has given up is skipped
      if (deadline.expired()) {
        throw deadline.timeout("the local model");
      }
      return infer(embedder, texts, inputType);
    }, false)).recover(failure -> {
      if (failure instanceof ServiceException) {
        return Future.failedFuture(failure);
      }
      LOG.error("local embedding inference failed", failure);
      return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR, "the local embedding model failed"));
    });
    return result.onComplete(done -> RagMetrics.get().embedding("local",
        Duration.ofNanos(System.nanoTime() - started), texts.size(),
        done.succeeded() ? "success" : ServiceException.from(done.cause()).code().name().toLowerCase(Locale.ROOT)));
  }

  @Override
  public Future<Void> close() {
    return workers.close();
  }

  private static List<float[]> infer(EmbeddingModel embedder, List<String> texts, InputType inputType) {
    List<TextSegment> segments = new ArrayList<>(texts.size());
    for (String text : texts) {
      // langchain4j refuses blank segments; a blank text gets a (meaningless) vector, not a failure
      String input = text.isBlank() ? "." : text;
      segments.add(TextSegment.from(inputType == InputType.SEARCH_QUERY ? QUERY_PREFIX + input : input));
    }
    List<Embedding> embeddings = embedder.embedAll(segments).content();
    List<float[]> vectors = new ArrayList<>(embeddings.size());
    for (Embedding embedding : embeddings) {
      vectors.add(Vectors.l2Normalize(embedding.vector().clone()));
    }
    return vectors;
  }

  private synchronized Future<EmbeddingModel> load() {
    if (loaded == null) {
      loaded = workers.executeBlocking(() -> {
        long started = System.nanoTime();
        prepareNativeCache();
        // a same-thread executor: parallelism comes from this pool, not a hidden one of langchain4j's
        EmbeddingModel embedder = new BgeSmallEnV15QuantizedEmbeddingModel(Runnable::run);
        LOG.info("local embedding model {} loaded in {} ms", model, (System.nanoTime() - started) / 1_000_000);
        return embedder;
      }, false).recover(failure -> {
        LOG.error("cannot load the local embedding model {}", model, failure);
        synchronized (this) {
          loaded = null; // the next request tries again
        }
        return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR,
            "the local embedding model could not be loaded"));
      });
    }
    return loaded;
  }

  /** DJL unpacks its tokenizer library under ~/.djl.ai unless told otherwise; HOME may be read-only. */
  static void prepareNativeCache() {
    if (System.getProperty("DJL_CACHE_DIR") != null || System.getenv("DJL_CACHE_DIR") != null
        || System.getProperty("ENGINE_CACHE_DIR") != null || System.getenv("ENGINE_CACHE_DIR") != null) {
      return;
    }
    Path home = Path.of(System.getProperty("user.home", "/"), ".djl.ai");
    try {
      Files.createDirectories(home);
      if (Files.isWritable(home)) {
        return;
      }
    } catch (Exception notWritable) {
      // fall through to the temp dir
    }
    Path fallback = Path.of(System.getProperty("java.io.tmpdir"), "djl.ai");
    System.setProperty("DJL_CACHE_DIR", fallback.toString());
    LOG.info("home folder is not writable; DJL natives go to {}", fallback);
  }
}
