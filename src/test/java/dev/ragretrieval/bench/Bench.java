package dev.ragretrieval.bench;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.observability.Logging;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * The service's speed claims as ratios measured in one run, on this machine, against the
 * in-process Qdrant and Cohere servers of the tests (Cohere answering after a fixed delay, as the
 * real one does over the network). Ratios, not absolute numbers: they hold from machine to machine
 * where requests per second do not. Run with {@code bench/run}; see {@code bench/README.md}.
 */
public final class Bench {

  private static final String[] TOPICS = {"ROS 2 nodes", "topics and publishers", "QoS profiles", "SLAM maps",
      "Nav2 planning", "zero moment point", "URDF joints", "Isaac Sim scenes", "VLA models", "TF2 frames"};

  private final Vertx vertx;
  private final TestStack stack;
  private final WebClient client;
  private final Duration phase;
  private final AtomicLong unique = new AtomicLong();

  private Bench(Vertx vertx, TestStack stack, Duration phase) {
    this.vertx = vertx;
    this.stack = stack;
    this.phase = phase;
    this.client = WebClient.create(vertx, new WebClientOptions()
            .setDefaultHost("127.0.0.1").setDefaultPort(stack.app.httpPort()).setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(512));
  }

  public static void main(String[] args) throws Exception {
    long upstreamMs = args.length > 0 ? Long.parseLong(args[0]) : 50;
    Duration phase = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 5);
    // one request log line per request would measure the terminal, not the service
    Logging.configure(new AppConfig.Logging("WARN", AppConfig.LogFormat.PLAIN, false));
    Vertx vertx = Vertx.vertx();
    TestStack stack = TestStack.start(vertx, Map.of("RAG_MAX_IN_FLIGHT", "10000"))
        .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    stack.cohere.delay(Duration.ofMillis(upstreamMs));
    List<String> rows = new ArrayList<>();
    try {
      new Bench(vertx, stack, phase).run(upstreamMs, rows);
    } finally {
      stack.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    String report = String.join("\n", rows) + "\n";
    System.out.print(report);
    Path out = Path.of("target", "bench", "results.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println("written to " + out);
  }

  private void run(long upstreamMs, List<String> rows) throws Exception {
    rows.add("# rag-retrieval bench: ratios measured in one run");
    rows.add("");
    rows.add(String.format(Locale.ROOT, "Cohere stand-in answers after %d ms; each phase runs %d s; %d cores.",
        upstreamMs, phase.toSeconds(), Runtime.getRuntime().availableProcessors()));
    rows.add("");
    rows.add("| claim | measured | baseline | ratio |");
    rows.add("|---|---|---|---|");

    // warm the JIT and the connections; not reported
    load(16, n -> retrieve(uniqueQuestion()), Duration.ofSeconds(2));

    // 1. a slow upstream does not hold an event loop: 64 waiting requests cost what 1 does
    Result one = load(1, n -> retrieve(uniqueQuestion()), phase);
    Result many = load(64, n -> retrieve(uniqueQuestion()), phase);
    rows.add(row("64 concurrent requests, each waiting on the upstream, vs 1 (throughput)", many, one,
        many.perSecond() / one.perSecond()));

    // 2. the query cache: a repeated question skips the upstream call
    Result repeated = load(16, n -> retrieve(TOPICS[(int) (n % TOPICS.length)]), phase);
    Result fresh = load(16, n -> retrieve(uniqueQuestion()), phase);
    rows.add(row("repeated questions vs new ones, 16 concurrent (throughput)", repeated, fresh,
        repeated.perSecond() / fresh.perSecond()));

    // 3. the batch endpoint embeds 32 questions in one upstream call and searches them in one round trip
    Result batched = load(1, n -> batch(32), phase);
    Result singles = load(1, n -> sequential(32), phase);
    rows.add(row("32 questions in one /v1/retrieve/batch vs 32 requests one after another (questions/s)",
        batched.times(32), singles.times(32), batched.perSecond() / singles.perSecond()));

    // 4. streaming costs about what JSON does
    Result sse = load(16, n -> stream(TOPICS[(int) (n % TOPICS.length)]), phase);
    Result json = load(16, n -> retrieve(TOPICS[(int) (n % TOPICS.length)]), phase);
    rows.add(row("SSE stream vs JSON answer, cached questions, 16 concurrent (throughput)", sse, json,
        sse.perSecond() / json.perSecond()));
  }

  private String uniqueQuestion() {
    long n = unique.incrementAndGet();
    return TOPICS[(int) (n % TOPICS.length)] + " question " + n;
  }

  private Future<Integer> retrieve(String question) {
    return client.post("/v1/retrieve").sendJsonObject(new JsonObject().put("query", question).put("top_k", 5))
        .map(HttpResponse::statusCode);
  }

  private Future<Integer> stream(String question) {
    return client.post("/v1/retrieve").putHeader("Accept", "text/event-stream")
        .sendJsonObject(new JsonObject().put("query", question).put("top_k", 5))
        .map(response -> response.bodyAsString().contains("event: done") ? response.statusCode() : 500);
  }

  private Future<Integer> batch(int questions) {
    JsonArray queries = new JsonArray();
    for (int i = 0; i < questions; i++) {
      queries.add(new JsonObject().put("query", uniqueQuestion()));
    }
    return client.post("/v1/retrieve/batch").sendJsonObject(new JsonObject().put("queries", queries))
        .map(HttpResponse::statusCode);
  }

  private Future<Integer> sequential(int questions) {
    Future<Integer> chain = Future.succeededFuture(200);
    for (int i = 0; i < questions; i++) {
      chain = chain.compose(status -> status == 200 ? retrieve(uniqueQuestion()) : Future.succeededFuture(status));
    }
    return chain;
  }

  /** {@code concurrency} loops, each sending its next request when the last one is answered, for {@code length}. */
  private Result load(int concurrency, LongFunction<Future<Integer>> request, Duration length) throws Exception {
    long end = System.nanoTime() + length.toNanos();
    AtomicLong sent = new AtomicLong();
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    AtomicLong failures = new AtomicLong();
    List<Future<Void>> loops = new ArrayList<>();
    long started = System.nanoTime();
    for (int i = 0; i < concurrency; i++) {
      Promise<Void> done = Promise.promise();
      vertx.runOnContext(v -> next(request, end, sent, latencies, failures, done));
      loops.add(done.future());
    }
    Future.all(loops).toCompletionStage().toCompletableFuture().get(length.toSeconds() + 120, TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - started) / 1e9;
    if (failures.get() > 0) {
      throw new IllegalStateException(failures.get() + " requests failed during the bench");
    }
    return new Result(latencies.size(), seconds, percentile(latencies, 0.5), percentile(latencies, 0.99));
  }

  private void next(LongFunction<Future<Integer>> request, long end, AtomicLong sent, List<Long> latencies,
      AtomicLong failures, Promise<Void> done) {
    if (System.nanoTime() >= end) {
      done.complete();
      return;
    }
    long start = System.nanoTime();
    request.apply(sent.incrementAndGet()).onComplete(outcome -> {
      if (outcome.succeeded() && outcome.result() == 200) {
        latencies.add(System.nanoTime() - start);
      } else {
        failures.incrementAndGet();
      }
      next(request, end, sent, latencies, failures, done);
    });
  }

  private static double percentile(List<Long> nanos, double p) {
    if (nanos.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(p * sorted.size()))) / 1e6;
  }

  private static String row(String claim, Result measured, Result baseline, double ratio) {
    return String.format(Locale.ROOT, "| %s | %s | %s | %.1fx |", claim, measured, baseline, ratio);
  }

  /** Completed requests over a phase, with median and 99th-percentile latency in ms. */
  private record Result(long completed, double seconds, double p50, double p99) {
    double perSecond() {
      return completed / seconds;
    }

    /** The same phase counted in units of {@code n} (questions per batch). */
    Result times(int n) {
      return new Result(completed * n, seconds, p50, p99);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.0f/s (p50 %.1f ms, p99 %.1f ms)", perSecond(), p50, p99);
    }
  }
}
