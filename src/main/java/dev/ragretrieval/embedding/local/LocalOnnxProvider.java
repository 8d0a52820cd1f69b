package dev.ragretrieval.embedding.local;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.upstream.Upstream;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * bge-small-en-v1.5 (quantized ONNX, 384 dimensions) running in process, the model file from the
 * langchain4j jar on Maven Central run by {@link BgeBatchEncoder}. The model loads once, lazily, on
 * a worker thread; inference runs on a dedicated worker pool, never on an event loop. Calls queue;
 * each free turn of the model takes the calls waiting (up to {@code embedding.local.batch_size}
 * texts), and up to {@link #parallelRuns} turns go at once, each on one ONNX Runtime thread: one
 * question's run is too small to split well over threads, two runs use two cores. Questions that
 * waited together share session runs, which shares a run's fixed cost (a third less CPU per
 * question under load); a question asked alone, and every document, runs alone and gets exactly
 * langchain4j's vector. Vectors are L2-normalised.
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
  private final int batchSize;
  /** Runs of the model at once: half the cores, at least two. */
  private final int parallelRuns = Math.max(2, Runtime.getRuntime().availableProcessors() / 2);
  private final WorkerExecutor workers;
  private final Upstream upstream;
  private final RagMetrics metrics;
  /** Calls waiting for the model, oldest first; guarded by {@code this}. */
  private final Deque<Waiting> waiting = new ArrayDeque<>();
  /** Runs of the model under way; guarded by {@code this}. */
  private int running;
  private Future<BgeBatchEncoder> loaded;

  /** One caller's texts, waiting for a run of the model. */
  private record Waiting(List<String> texts, InputType inputType, Deadline deadline, Promise<List<float[]>> done) {}

  /** What one run of the model did for one caller: vectors, or why none. */
  private record Answer(Waiting call, List<float[]> vectors, ServiceException failure) {}

  public LocalOnnxProvider(Vertx vertx, AppConfig.Embedding config, RagMetrics metrics) {
    AppConfig.Local local = config.local();
    this.model = local.model();
    this.maxTextsPerCall = local.maxTextsPerCall();
    this.batchSize = local.batchSize();
    if (local.dimension() != DIMENSION) {
      LOG.warn("embedding.local.dimension is {} but {} gives {}-dimensional vectors; using {}",
          local.dimension(), local.model(), DIMENSION, DIMENSION);
    }
    // one thread per run; the model loads on one of them before any run starts
    this.workers = vertx.createSharedWorkerExecutor("rag-local-embedding", parallelRuns, 5, TimeUnit.MINUTES);
    this.metrics = metrics;
    this.upstream = Upstream.inProcess(vertx, metrics, Upstream.Kind.EMBEDDING, "local", "the local model",
        config.timeout());
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

  /**
   * Queues the texts for the model. Whenever a run is free it takes the oldest waiting calls, up to
   * {@code batch_size} texts in all (a larger call goes alone), and embeds them: concurrent
   * questions share runs instead of queueing one by one.
   */
  @Override
  public Future<List<float[]>> embed(List<String> texts, InputType inputType, Deadline deadline) {
    if (texts.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return upstream.call("embed", texts.size(), deadline, budget -> {
      Promise<List<float[]>> done = Promise.promise();
      synchronized (this) {
        waiting.add(new Waiting(List.copyOf(texts), inputType, deadline, done));
      }
      runNext();
      return done.future();
    });
  }

  @Override
  public Future<Void> warmUp() {
    return load().mapEmpty();
  }

  /** Whether the model is in memory (loaded by {@link #warmUp} or the first call). */
  public synchronized boolean loaded() {
    return loaded != null && loaded.succeeded();
  }

  @Override
  public Future<Void> close() {
    upstream.close();
    return workers.close();
  }

  /** Starts a run of the model on the waiting calls, unless all runs are under way (each starts the next when done). */
  private void runNext() {
    List<Waiting> batch = new ArrayList<>();
    synchronized (this) {
      if (running == parallelRuns || waiting.isEmpty()) {
        return;
      }
      int texts = 0;
      while (!waiting.isEmpty() && (batch.isEmpty() || texts + waiting.peek().texts().size() <= batchSize)) {
        Waiting next = waiting.poll();
        texts += next.texts().size();
        batch.add(next);
      }
      running++;
      metrics.localModelRun(texts);
    }
    load().compose(encoder -> workers.executeBlocking(() -> run(encoder, batch), false))
        .onComplete(done -> {
          synchronized (this) {
            running--;
          }
          if (done.succeeded()) {
            done.result().forEach(answer -> {
              if (answer.failure() == null) {
                answer.call().done().complete(answer.vectors());
              } else {
                answer.call().done().fail(answer.failure());
              }
            });
          } else {
            batch.forEach(call -> call.done().fail(done.cause()));
          }
          runNext();
        });
  }

  /**
   * One turn of the model over every call of the batch whose caller is still waiting: the
   * questions together, in shared session runs of up to {@code batchSize} rows; documents each in
   * a run of its own, so stored vectors never depend on what was ingested with them.
   */
  private List<Answer> run(BgeBatchEncoder encoder, List<Waiting> batch) throws Exception {
    List<Answer> answers = new ArrayList<>(batch.size());
    List<Waiting> live = new ArrayList<>(batch.size());
    List<String> questions = new ArrayList<>();
    List<String> documents = new ArrayList<>();
    for (Waiting call : batch) {
      // queued work whose caller has given up is skipped
      if (call.deadline().expired()) {
        answers.add(new Answer(call, null, call.deadline().timeout("the local model")));
        continue;
      }
      live.add(call);
      List<String> inputs = call.inputType() == InputType.SEARCH_QUERY ? questions : documents;
      call.texts().forEach(text -> inputs.add(input(text, call.inputType())));
    }
    Iterator<float[]> questionVectors = encoder.embed(questions, batchSize).iterator();
    Iterator<float[]> documentVectors = encoder.embed(documents, BgeBatchEncoder.EXACT).iterator();
    for (Waiting call : live) {
      Iterator<float[]> vectors = call.inputType() == InputType.SEARCH_QUERY ? questionVectors : documentVectors;
      List<float[]> own = new ArrayList<>(call.texts().size());
      for (int i = 0; i < call.texts().size(); i++) {
        own.add(vectors.next());
      }
      answers.add(new Answer(call, own, null));
    }
    return answers;
  }

  private static String input(String text, InputType inputType) {
    // the model refuses blank texts (as langchain4j did); a blank text gets a (meaningless) vector, not a failure
    String input = text.isBlank() ? "." : text;
    return inputType == InputType.SEARCH_QUERY ? QUERY_PREFIX + input : input;
  }

  private synchronized Future<BgeBatchEncoder> load() {
    if (loaded == null) {
      loaded = workers.executeBlocking(() -> {
        long started = System.nanoTime();
        prepareNativeCache();
        BgeBatchEncoder encoder = BgeBatchEncoder.shared();
        LOG.info("local embedding model {} loaded in {} ms", model, (System.nanoTime() - started) / 1_000_000);
        return encoder;
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
