package dev.ragretrieval.bench;

import dev.ragretrieval.testing.Await;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The load generator and conductor of {@code bench/run}: starts the stand-ins ({@link StandIns})
 * and the packaged jar as processes of their own, drives the service over HTTP from this process
 * (127.0.0.1 only, bounded durations and request counts), and measures each phase from outside:
 * req/s, p50/p99, the service process's CPU per request (utime + stime from /proc), its RSS, and
 * the embedding calls and inputs per request that reached the Cohere stand-in.
 *
 * <p>System properties: bench.jar, bench.cohereMs, bench.qdrantMs, bench.seconds, bench.dim,
 * bench.profile (a directory: JFR recordings of the service over uncached 64, cached 256 and SSE 64),
 * bench.perf (true: with bench.profile, a Linux perf recording of the realistic new questions at 64 clients too),
 * bench.phases (comma list of phase groups to run: upstream, stream, batch, embedded).
 */
public final class Bench {

  /** The bench's own ports (18140-18159). */
  private static final int QDRANT_PORT = 18141;
  private static final int COHERE_PORT = 18142;
  private static final int CONTROL_PORT = 18143;
  private static final int SERVICE_PORT = 18144;
  private static final int EMBEDDED_PORT = 18145;
  private static final int PEER_PORT = 18146;
  private static final long MAX_REQUESTS_PER_PHASE = 2_000_000;
  /** QDRANT_HOST when the Qdrant stand-in answers on several addresses (bench.qdrantAddresses). */
  private static final String CLUSTER_NAME = "qdrant-bench.cluster.test";

  private static final String[] TOPICS = {"ROS 2 nodes", "topics and publishers", "QoS profiles", "SLAM maps",
      "Nav2 planning", "zero moment point", "URDF joints", "Isaac Sim scenes", "VLA models", "TF2 frames"};
  /** The realistic workload's questions, about the Python manual it is seeded with. */
  private static final String[] MANUAL_TOPICS = {"reference counting in extension modules",
      "parse command line arguments", "asyncio task cancellation", "unicode string objects",
      "thread safety and the GIL", "exceptions raised by the C API", "module initialisation",
      "iterators and generators", "memory allocation functions", "buffer protocol"};

  /** The compiler's share of a warm-up slice's CPU below which the process counts as warmed up. */
  private static final double JIT_SETTLED = 0.02;
  private static final int MAX_WARM_UP_ROUNDS = 20;

  private String[] topics = TOPICS;

  private final Vertx vertx = Vertx.vertx();
  /** Made again for each process measured: see {@link #measure}. */
  private volatile HttpClient http;
  private final Duration phase;
  private final long ticksPerSecond;
  private final AtomicLong unique = new AtomicLong(System.currentTimeMillis() % 1_000_000 * 1_000);
  private final List<String> rows = new ArrayList<>();
  /** Per phase, the thread pools that used the most CPU: printed under the table. */
  private final List<String> poolRows = new ArrayList<>();
  private Process service;
  /** The process whose CPU a load measures: the service, or the peer in its turn. */
  private Process measured;
  private int port;
  /** The uri questions are posted to on {@link #port}. */
  private String retrieveUri = "/v1/retrieve";
  private boolean standInsRunning;
  private int warmUpRounds;

  private Bench(Duration phase) throws Exception {
    this.phase = phase;
    this.http = newClient();
    this.ticksPerSecond = Long.parseLong(run("getconf", "CLK_TCK").trim());
  }

  public static void main(String[] args) throws Exception {
    String jar = System.getProperty("bench.jar", "target/rag-retrieval.jar");
    long cohereMs = Long.getLong("bench.cohereMs", 20);
    long qdrantMs = Long.getLong("bench.qdrantMs", 2);
    int dim = Integer.getInteger("bench.dim", 1024);
    Duration phase = Duration.ofSeconds(Long.getLong("bench.seconds", 10));
    String profile = System.getProperty("bench.profile");
    List<String> groups = List.of(System.getProperty("bench.phases", "realistic").split(","));
    Path out = Path.of("target", "bench");
    Files.createDirectories(out);

    Bench bench = new Bench(phase);
    bench.rowsEnabled = groups.stream().anyMatch(g -> !g.equals("realistic"));
    Process standIns = null;
    // an interrupted bench leaves no service or stand-ins behind
    Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().children().forEach(ProcessHandle::destroy)));
    try {
      if (groups.contains("realistic")) {
        bench.realistic(jar, dim, cohereMs, qdrantMs, out, profile);
      }
      bench.header(cohereMs, qdrantMs, dim);
      if (groups.contains("upstream") || groups.contains("stream") || groups.contains("batch")) {
        standIns = startStandIns(out, String.valueOf(dim), String.valueOf(cohereMs), String.valueOf(qdrantMs));
        bench.standInsRunning = true;
        bench.startService(jar, out.resolve("service.log"), SERVICE_PORT, Map.of(
            "QDRANT_HOST", "127.0.0.1",
            "QDRANT_GRPC_PORT", String.valueOf(QDRANT_PORT),
            "COHERE_API_KEY", TestStack.COHERE_KEY,
            "COHERE_BASE_URL", "http://127.0.0.1:" + COHERE_PORT,
            "COHERE_EMBED_DIMENSION", String.valueOf(dim),
            "EMBEDDING_PROVIDER", "cohere"));
        bench.warmUp();
        bench.rows.set(2, bench.rows.get(2) + String.format(Locale.ROOT,
            " Warm-up: %d rounds of every kind of request, until the JIT compiler used under %d%% of the service's CPU in each.", bench.warmUpRounds, settledPercent()));
        if (groups.contains("upstream")) {
          bench.upstreamPhases();
        }
        if (groups.contains("stream")) {
          bench.streamPhases();
        }
        if (groups.contains("batch")) {
          bench.batchPhases();
        }
        if (profile != null) {
          bench.profile(profile);
        }
        bench.stopService();
        standIns.getOutputStream().close();
        standIns.waitFor(20, TimeUnit.SECONDS);
        bench.standInsRunning = false;
      }
      if (groups.contains("embedded")) {
        Path data = Files.createTempDirectory("rag-bench-data");
        bench.startService(jar, out.resolve("service-embedded.log"), EMBEDDED_PORT,
            Map.of("RAG_DATA_DIR", data.toString()));
        bench.embeddedPhases();
        bench.stopService();
      }
    } finally {
      bench.stopService();
      if (standIns != null && standIns.isAlive()) {
        standIns.destroy();
      }
      bench.vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    String report = String.join("\n", bench.realisticRows) + (bench.rows.isEmpty() ? "" : "\n\n" + String.join("\n", bench.rows)
        + "\n\nService CPU by thread pool, ms per request (the five largest):\n\n"
        + "| phase | clients | pools |\n|---|---|---|\n" + String.join("\n", bench.poolRows)) + "\n";
    System.out.print(report);
    Files.writeString(out.resolve("results.md"), report);
    System.out.println("written to " + out.resolve("results.md"));
  }

  private void header(long cohereMs, long qdrantMs, int dim) throws Exception {
    if (!rowsEnabled) {
      return;
    }
    rows.add("# rag-retrieval bench: the small workload");
    rows.add("");
    rows.add(String.format(Locale.ROOT, "%s; %d cores; load average before the run: %s; Cohere stand-in %d ms, "
            + "Qdrant stand-in %d ms, %d-dimension vectors, 5 chunks per answer; %d s per phase after warm-up.",
        Instant.now().toString().substring(0, 16).replace('T', ' ') + " UTC",
        Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).substring(0, 14).trim(),
        cohereMs, qdrantMs, dim, phase.toSeconds()));
    rows.add(String.format(Locale.ROOT, "Machine check: SHA-256 of 64 MB took %.0f ms of CPU (best of 5; compare runs by it: "
        + "a slower machine moves every row).", machineCheckMs()));
    rows.add("");
    rows.add("| phase | clients | req/s | p50 ms | p99 ms | failed | service CPU ms/req | of which Vert.x threads | RSS MB | embed calls/req | embed inputs/req |");
    rows.add("|---|---|---|---|---|---|---|---|---|---|---|");
  }

  /**
   * A fixed piece of CPU work, timed in this process before anything else runs: shared machines
   * change speed from hour to hour, and this says by how much, beside the table.
   */
  private static double machineCheckMs() throws Exception {
    byte[] block = new byte[1 << 20];
    new java.util.Random(1).nextBytes(block);
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    double best = Double.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      long started = threads.getCurrentThreadCpuTime();
      for (int i = 0; i < 64; i++) {
        sha.update(block);
      }
      sha.digest();
      best = Math.min(best, (threads.getCurrentThreadCpuTime() - started) / 1e6);
    }
    return best;
  }

  // --- phases ---

  /**
   * Rounds of every kind of request until the JIT compiler has settled (see {@link #warmUp(List)}).
   * Until then the compiler's CPU would be counted against the requests of whichever phase came first.
   */
  private void warmUp() throws Exception {
    Duration slice = Duration.ofSeconds(4);
    warmUp(List.of(
        () -> load(64, n -> retrieve(uniqueQuestion()), slice),
        () -> load(256, n -> retrieve(cachedQuestion(n)), slice),
        () -> load(64, n -> stream(cachedQuestion(n)), slice),
        () -> load(4, n -> batch(32), slice.dividedBy(2))));
  }

  private interface Round {
    void run() throws Exception;
  }

  /** A round that says how many requests it completed. */
  private interface Counted {
    long run() throws Exception;
  }

  /**
   * Runs rounds of {@code slices} for at least bench.warmup seconds (default 40, the issue's
   * warm-up at full rate) and until the JIT compiler used under {@link #JIT_SETTLED} of the
   * measured process's CPU in every slice of a round (at most 20 rounds). Judged slice by slice, not
   * over the round: a round's busy slices (repeated questions keep both cores busy) hid the compiler
   * still at work on a light one, and it then took 8% of the first row (bench/HISTORY.md, seventh
   * pass). Under 5% a slice was not enough either: after a round at 3% / 2% / 0% / 0%, C2 still took
   * 5% of the first row (twenty-first pass).
   */
  private void warmUp(List<Round> slices) throws Exception {
    long until = System.nanoTime() + warmUpNanos();
    for (int number = 1; number <= MAX_WARM_UP_ROUNDS; number++) {
      warmUpRounds = number;
      if (warmUpRound("", number, slices) < JIT_SETTLED && System.nanoTime() >= until) {
        return;
      }
    }
  }

  /**
   * {@link #warmUp(List)} for the peer and the service in alternate rounds, the peer's first, as
   * the rows alternate, until both settle in the same pair of rounds and each has had its
   * bench.warmup seconds of load: neither then idles longer than one of the other's rounds. Left
   * idle through the other's whole warm-up, a JVM on JDK 17 had compiled code thrown out by its
   * code cache sweeper and compiled it again in the first row: the service, when it warmed up first
   * (C2 at 0.03-0.08 ms a request in that row); the peer, when it did (C2 at 0.034-0.103 ms a
   * request, 4-10% of its CPU, in the first row of 18 of 39 runs up to the twenty-first pass, which
   * flattered that row's ratio). Returns the number of pairs.
   */
  private int warmUpInTurns(List<Round> slices, Process peer) throws Exception {
    long peerLoad = 0;
    long serviceLoad = 0;
    for (int number = 1; number <= MAX_WARM_UP_ROUNDS; number++) {
      measure(peer, PEER_PORT);
      long started = System.nanoTime();
      boolean peerSettled = warmUpRound("peer, ", number, slices) < JIT_SETTLED;
      peerLoad += System.nanoTime() - started;
      measure(service, SERVICE_PORT);
      started = System.nanoTime();
      boolean serviceSettled = warmUpRound("service, ", number, slices) < JIT_SETTLED;
      serviceLoad += System.nanoTime() - started;
      if (peerSettled && serviceSettled && Math.min(peerLoad, serviceLoad) >= warmUpNanos()) {
        return number;
      }
    }
    return MAX_WARM_UP_ROUNDS;
  }

  private static long settledPercent() {
    return Math.round(100 * JIT_SETTLED);
  }

  private static long warmUpNanos() {
    return TimeUnit.SECONDS.toNanos(Long.getLong("bench.warmup", 40));
  }

  /** One round of {@code slices} on the measured process; prints and returns the compiler's largest share of a slice's CPU. */
  private double warmUpRound(String who, int number, List<Round> slices) throws Exception {
    List<String> shares = new ArrayList<>();
    double largest = 0;
    for (Round slice : slices) {
      long[] before = cpuTicks();
      slice.run();
      long[] after = cpuTicks();
      double share = (after[2] - before[2]) / (double) Math.max(1, after[0] - before[0]);
      largest = Math.max(largest, share);
      shares.add(String.format(Locale.ROOT, "%.0f%%", 100 * share));
    }
    System.out.printf(Locale.ROOT, "warm-up round %d: %sJIT compiler %s of the process's CPU, slice by slice%n", number,
        who, String.join(" / ", shares));
    return largest;
  }

  /**
   * Extra phases, recorded and not reported, after every reported phase of this service: uncached
   * at 64 clients, cached at 256, SSE at 64, one recording each. A recording costs CPU of its own,
   * and stopping it makes the JIT compiler work again.
   */
  private void profile(String profile) throws Exception {
    Files.createDirectories(Path.of(profile));
    Duration slice = Duration.ofSeconds(4);
    record(profile, "uncached-64", () -> load(64, n -> retrieve(uniqueQuestion()), phase.multipliedBy(2)),
        () -> load(64, n -> retrieve(uniqueQuestion()), slice));
    record(profile, "cached-256", () -> load(256, n -> retrieve(cachedQuestion(n)), phase.multipliedBy(2)),
        () -> load(256, n -> retrieve(cachedQuestion(n)), slice));
    record(profile, "sse-64", () -> load(64, n -> stream(cachedQuestion(n)), phase.multipliedBy(2)),
        () -> load(64, n -> stream(cachedQuestion(n)), slice));
  }

  /**
   * A JFR recording of the service over {@code phase}, into dir/NAME.jfr, of the code the rows ran.
   * Starting a recording with these settings makes the JIT compiler work again: on a settled
   * process it took half the CPU for about 40 s, and a 30-s recording from its start held 76
   * compilations of 100 ms or more, the whole request path (forty-first pass). So a recording with
   * the same settings and no file is started first and kept on, {@code slice} runs until the
   * compiler has settled again, and only then does the recording that is kept start.
   */
  private void record(String profile, String name, Round phase, Round slice) throws Exception {
    String pid = String.valueOf(service.pid());
    run("jcmd", pid, "JFR.start", "name=" + name + "-settling", "settings=profile");
    settle("JFR on, " + name, slice);
    run("jcmd", pid, "JFR.start", "name=" + name, "settings=profile",
        "filename=" + Path.of(profile, name + ".jfr").toAbsolutePath());
    phase.run();
    run("jcmd", pid, "JFR.stop", "name=" + name);
    run("jcmd", pid, "JFR.stop", "name=" + name + "-settling");
  }

  /** {@code slice} again and again, unmeasured, until the JIT compiler takes under {@link #JIT_SETTLED} of one. */
  private void settle(String what, Round slice) throws Exception {
    for (int number = 1; number <= MAX_WARM_UP_ROUNDS; number++) {
      if (warmUpRound(what + ": settling, ", number, List.of(slice)) < JIT_SETTLED) {
        return;
      }
    }
  }

  /**
   * Linux perf over the whole service process (kernel, JVM and compiled Java, which JFR's samples
   * leave out or cannot see), into dir/NAME.perf.data; the JIT's symbol map goes to
   * /tmp/perf-PID.map for {@code perf report}. Its sampling costs the service CPU of its own, so it
   * runs apart from the measured rows.
   */
  private void perf(String profile, String name, Round phase) throws Exception {
    String pid = String.valueOf(service.pid());
    Process perf;
    try {
      perf = new ProcessBuilder("perf", "record", "-F", "999", "-g", "-p", pid,
          "-o", Path.of(profile, name + ".perf.data").toAbsolutePath().toString())
          .redirectErrorStream(true).redirectOutput(Path.of(profile, name + ".perf.log").toFile()).start();
    } catch (java.io.IOException e) {
      System.out.println("bench.perf: no perf recording (" + e.getMessage() + "); install linux-perf for one");
      return;
    }
    phase.run();
    perf.destroy(); // SIGTERM: perf writes its data and exits
    perf.waitFor(60, TimeUnit.SECONDS);
    run("jcmd", pid, "Compiler.perfmap");
  }

  /** The system calls a phase made (perf's syscall tracepoints, counted in the kernel), per request. */
  private static final List<String> SYSCALLS = List.of("epoll_wait", "read", "write", "writev", "futex");

  /**
   * The service's system calls per request over {@code phase} ({@code perf stat} on the syscall
   * tracepoints: counted in the kernel, so unlike strace it does not slow the calls it counts),
   * printed and written to dir/NAME.syscalls.txt. An event loop that polls without blocking shows
   * here as many {@code epoll_wait} calls a request.
   */
  private void syscalls(String profile, String name, Counted phase) throws Exception {
    Path out = Path.of(profile, name + ".syscalls.txt").toAbsolutePath();
    List<String> command = new ArrayList<>(List.of("perf", "stat", "-x", ",", "-o", out.toString(),
        "-p", String.valueOf(service.pid())));
    for (String call : SYSCALLS) {
      command.addAll(List.of("-e", "syscalls:sys_enter_" + call));
    }
    Process stat;
    try {
      stat = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (java.io.IOException e) {
      System.out.println("bench.perf: no system call counts (" + e.getMessage() + ")");
      return;
    }
    long requests = phase.run();
    if (stat.isAlive()) {
      run("kill", "-INT", String.valueOf(stat.pid())); // perf stat prints its counts on SIGINT, not on SIGTERM
      stat.waitFor(30, TimeUnit.SECONDS);
    }
    if (!Files.exists(out)) {
      System.out.println("bench.perf: perf stat counted nothing (are the syscall tracepoints readable?)");
      return;
    }
    StringBuilder line = new StringBuilder("system calls per request, " + name + ":");
    for (String row : Files.readAllLines(out)) {
      String[] fields = row.split(",");
      if (fields.length > 2 && fields[2].startsWith("syscalls:sys_enter_") && !fields[0].isBlank()
          && Character.isDigit(fields[0].charAt(0))) {
        line.append(String.format(Locale.ROOT, " %s %.2f", fields[2].substring("syscalls:sys_enter_".length()),
            Long.parseLong(fields[0]) / (double) Math.max(1, requests)));
      }
    }
    System.out.println(line);
    Files.writeString(out, line + "\n", java.nio.file.StandardOpenOption.APPEND);
  }

  private void upstreamPhases() throws Exception {
    report("uncached (new questions)", load(64, n -> retrieve(uniqueQuestion()), phase));
    report("uncached (new questions)", load(256, n -> retrieve(uniqueQuestion()), phase));
    report("cached (10 repeated questions)", load(64, n -> retrieve(cachedQuestion(n)), phase));
    report("cached (10 repeated questions)", load(256, n -> retrieve(cachedQuestion(n)), phase));
  }

  /**
   * JSON and SSE in turns, three rounds of a third of a phase each: whatever else the machine does
   * over those seconds lands on both alike, where one phase after the other would charge it to one.
   */
  private void streamPhases() throws Exception {
    Latencies jsonLatencies = new Latencies();
    Latencies sseLatencies = new Latencies();
    Result json = null;
    Result sse = null;
    for (int round = 0; round < 3; round++) {
      json = load(64, n -> retrieve(cachedQuestion(n)), phase.dividedBy(3), jsonLatencies).after(json);
      sse = load(64, n -> stream(cachedQuestion(n)), phase.dividedBy(3), sseLatencies).after(sse);
    }
    report("JSON answer, 5 chunks, cached", json);
    report("SSE stream, 5 chunks, cached", sse);
    rows.add(String.format(Locale.ROOT, "| SSE / JSON CPU per request | | | | | | %.2fx | %.2fx | | | |",
        sse.cpuMsPerRequest() / json.cpuMsPerRequest(), sse.loopMsPerRequest() / json.loopMsPerRequest()));
  }

  private void batchPhases() throws Exception {
    report("batch of 32 new questions (per question)", load(4, n -> batch(32), phase).times(32));
    report("single new questions", load(128, n -> retrieve(uniqueQuestion()), phase));
  }

  private void embeddedPhases() throws Exception {
    // warmed up like the other service: the compiler's CPU would otherwise land on the 1-client phase
    warmUp(List.of(
        () -> load(1, n -> retrieve(uniqueQuestion()), Duration.ofSeconds(3)),
        () -> load(64, n -> retrieve(uniqueQuestion()), Duration.ofSeconds(5))));
    rows.set(2, rows.get(2) + String.format(Locale.ROOT,
        " Embedded default warm-up: %d rounds of 1 and 64 clients, until the same.", warmUpRounds));
    Result one = load(1, n -> retrieve(uniqueQuestion()), phase);
    Result many = load(64, n -> retrieve(uniqueQuestion()), phase);
    report("embedded default, new questions", one);
    report("embedded default, new questions", many);
    rows.add(String.format(Locale.ROOT, "| embedded 64 / 1 client throughput | | %.2fx | | | | | | | | |",
        many.perSecond() / one.perSecond()));
  }

  // --- the realistic workload, beside the peer ---

  private final List<String> realisticRows = new ArrayList<>();
  private boolean rowsEnabled;

  /**
   * Stand-ins seeded with a real manual (bench.manual, bench.chunks chunks) and answering dense
   * Cohere-printed vectors; the service and, when bench.peer names its jar, the peer against
   * them; per row the service's and then the peer's load, and the ratio of their CPU per request.
   */
  private void realistic(String jar, int dim, long cohereMs, long qdrantMs, Path out, String profile) throws Exception {
    String manual = System.getProperty("bench.manual");
    if (manual == null) {
      throw new IllegalStateException("the realistic workload needs bench.manual (a folder of HTML pages)");
    }
    int chunks = Integer.getInteger("bench.chunks", 2500);
    String peerJar = System.getProperty("bench.peer");
    Process standIns = startStandIns(out, String.valueOf(dim), String.valueOf(cohereMs), String.valueOf(qdrantMs),
        manual, String.valueOf(chunks), hybrid() ? "hybrid" : "dense");
    standInsRunning = true;
    topics = MANUAL_TOPICS;
    Process peer = null;
    try {
      Map<String, String> settings = new HashMap<>(Map.of(
          "QDRANT_HOST", qdrantAddresses() > 1 ? CLUSTER_NAME : "127.0.0.1",
          "QDRANT_GRPC_PORT", String.valueOf(QDRANT_PORT),
          "COHERE_API_KEY", TestStack.COHERE_KEY,
          "COHERE_BASE_URL", "http://127.0.0.1:" + COHERE_PORT,
          "COHERE_EMBED_DIMENSION", String.valueOf(dim),
          "EMBEDDING_PROVIDER", "cohere"));
      String instances = System.getProperty("bench.instances");
      if (instances != null && !instances.isBlank()) {
        settings.put("RAG_HTTP_INSTANCES", instances);
      }
      String coalesceWindow = System.getProperty("bench.coalesceWindow");
      if (coalesceWindow != null && !coalesceWindow.isBlank()) {
        settings.put("RAG_COALESCE_WINDOW_MS", coalesceWindow);
      }
      String resultCacheTtl = System.getProperty("bench.resultCacheTtl");
      if (resultCacheTtl != null && !resultCacheTtl.isBlank()) {
        settings.put("RAG_RESULT_CACHE_TTL_MS", resultCacheTtl);
      }
      startService(jar, out.resolve("service.log"), SERVICE_PORT, settings);
      Process service = this.service;
      // LangChain4j's store reads a hit's unnamed vector to score it, and beside a sparse vector Qdrant
      // returns vectors by name: on a hybrid collection every peer search fails
      if (peerJar != null && !peerJar.isBlank() && !hybrid()) {
        peer = startPeer(peerJar, out.resolve("peer.log"));
      }
      realisticHeader(dim, cohereMs, qdrantMs, manual, chunks, instances, peer != null);
      Duration slice = Duration.ofSeconds(Long.getLong("bench.warmupSlice", 4));
      // every row's load in each round: a path first taken in a measured row (a larger share of
      // questions per upstream call at 256 clients) had its compiling counted in that row
      List<Round> round = List.of(
          () -> load(64, n -> retrieve(uniqueQuestion()), slice),
          () -> load(256, n -> retrieve(uniqueQuestion()), slice),
          () -> load(64, n -> retrieve(cachedQuestion(n)), slice),
          () -> load(256, n -> retrieve(cachedQuestion(n)), slice));
      if (peer != null) {
        int rounds = warmUpInTurns(round, peer);
        realisticRows.set(2, realisticRows.get(2) + String.format(Locale.ROOT, " Warm-up: %d rounds each, the peer's"
            + " and the service's in turns, of new and repeated questions at 64 and 256 clients, %d s each, until"
            + " the JIT compiler used under %d%% of each process's CPU in every slice of a pair of rounds.", rounds,
            slice.toSeconds(), settledPercent()));
      } else {
        measure(service, SERVICE_PORT);
        warmUp(round);
        realisticRows.set(2, realisticRows.get(2) + String.format(Locale.ROOT, " Warm-up: %d rounds of new and"
            + " repeated questions at 64 and 256 clients, %d s each, until the JIT compiler used under %d%% of the"
            + " service's CPU in every slice of a round.", warmUpRounds, slice.toSeconds(), settledPercent()));
      }
      List<String> loopRows = new ArrayList<>();
      // bench.repeats: the four rows again, in turns, to tell a change from the spread between slices of one run
      int repeats = Math.max(1, Integer.getInteger("bench.repeats", 1));
      Map<String, List<Double>> ratios = new LinkedHashMap<>();
      for (int repeat = 1; repeat <= repeats; repeat++) {
        String of = repeats == 1 ? "" : " (" + repeat + "/" + repeats + ")";
        realisticRow("new questions" + of, 64, true, service, peer, loopRows, ratios);
        realisticRow("new questions" + of, 256, true, service, peer, loopRows, ratios);
        realisticRow("repeated questions" + of, 64, false, service, peer, loopRows, ratios);
        realisticRow("repeated questions" + of, 256, false, service, peer, loopRows, ratios);
      }
      // bench.serviceRestarts: new questions at 64 clients again, each time from a new service process
      // (the stand-ins and the peer keep running), to tell what a process brings from what a run does
      int restarts = Integer.getInteger("bench.serviceRestarts", 0);
      // bench.jarB, bench.serviceJavaOptionsB: every other restarted process (the 2nd, 4th, ...) runs
      // that jar or with these flags instead, so two jars or two sets of flags are compared process
      // by process against the same stand-ins and peer
      String jarB = System.getProperty("bench.jarB");
      String flagsB = System.getProperty("bench.serviceJavaOptionsB");
      String labelB = Stream.of(jarB == null ? null : Path.of(jarB).getFileName().toString(), flagsB)
          .filter(Objects::nonNull).collect(Collectors.joining(", ", " (", ")"));
      for (int restart = 1; restart <= restarts; restart++) {
        if (profile != null && Boolean.getBoolean("bench.perf")) {
          // each process's own perf recording, to set a cheap process's beside a dear one's (the last
          // process is recorded below, as realistic-new-64)
          measure(service, SERVICE_PORT);
          Files.createDirectories(Path.of(profile));
          Round fresh = () -> load(64, n -> retrieve(uniqueQuestion()), phase.multipliedBy(2));
          if (restart == 1) {
            // its last rows were repeated questions (see below)
            settle("new questions at 64 clients", () -> load(64, n -> retrieve(uniqueQuestion()), Duration.ofSeconds(4)));
          }
          perf(profile, "realistic-new-64-process-" + restart, fresh);
        }
        stopService();
        boolean b = (jarB != null || flagsB != null) && restart % 2 == 1;
        serviceJavaOptions = b && flagsB != null ? flagsB : System.getProperty("bench.serviceJavaOptions", "");
        startService(b && jarB != null ? jarB : jar, out.resolve("service-" + (restart + 1) + ".log"), SERVICE_PORT,
            settings);
        service = this.service;
        if (peer != null) {
          warmUpInTurns(round, peer);
        } else {
          measure(service, SERVICE_PORT);
          warmUp(round);
        }
        realisticRow("new questions, service process " + (restart + 1) + (b ? labelB : ""), 64, true, service, peer,
            loopRows, new LinkedHashMap<>());
      }
      if (repeats > 1 && peer != null) {
        realisticRows.add("");
        realisticRows.add("Ratios of the " + repeats + " repeats, in the order measured, and their median (attempts"
            + " measured again for steal left out):");
        realisticRows.add("");
        ratios.forEach((row, values) -> {
          List<Double> sorted = values.stream().sorted().toList();
          double median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
              : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
          realisticRows.add(String.format(Locale.ROOT, "- %s: %s; median %.3f", row,
              values.stream().map(v -> String.format(Locale.ROOT, "%.3f", v)).collect(Collectors.joining(", ")), median));
        });
      }
      realisticRows.add("");
      realisticRows.add("Texts per Cohere call and questions per Qdrant search call (Query or QueryBatch) of the service"
          + " (questions of one event-loop turn, or of one coalescing window, share a call). CPU per"
          + " request, ms: the kernel's part (stime) of each process; by thread, each Vert.x event loop of the service on"
          + " its own (by thread id), then the other pools; the peer's five largest pools. Steal: the share of the"
          + " machine's CPU time that the hypervisor gave to other guests during each load (/proc/stat).");
      realisticRows.add("");
      realisticRows.add("| workload | clients | service texts per Cohere call | service questions per Qdrant call"
          + " | service kernel | peer kernel | steal % (service / peer) | service event loops | service, other pools | peer pools |");
      realisticRows.add("|---|---|---|---|---|---|---|---|---|---|");
      realisticRows.addAll(loopRows);
      if (profile != null) {
        measure(service, SERVICE_PORT);
        Files.createDirectories(Path.of(profile));
        Round fresh = () -> load(64, n -> retrieve(uniqueQuestion()), phase.multipliedBy(2));
        Round freshSlice = () -> load(64, n -> retrieve(uniqueQuestion()), Duration.ofSeconds(4));
        Round repeated = () -> load(256, n -> retrieve(cachedQuestion(n)), phase.multipliedBy(2));
        Round repeatedSlice = () -> load(256, n -> retrieve(cachedQuestion(n)), Duration.ofSeconds(4));
        // after a minute of repeated questions the JVM may have dropped the new questions' compiled
        // code (a perf profile without this showed the C2 compiler at 60% of the service's CPU): new
        // questions unrecorded until the compiler has settled, so the recordings show the steady state
        // the rows measured. perf before JFR: a JFR recording makes the compiler work again (a perf
        // recording right after one had the C2 threads in 17% of its samples, forty-first pass)
        settle("new questions at 64 clients", freshSlice);
        if (Boolean.getBoolean("bench.perf")) {
          perf(profile, "realistic-new-64", fresh);
          syscalls(profile, "realistic-new-64",
              () -> load(64, n -> retrieve(uniqueQuestion()), phase.multipliedBy(2)).completed());
        }
        record(profile, "realistic-new-64", fresh, freshSlice);
        record(profile, "realistic-repeated-256", repeated, repeatedSlice);
      }
    } finally {
      if (peer != null) {
        peer.destroy();
        peer.waitFor(30, TimeUnit.SECONDS);
      }
      stopService();
      standIns.getOutputStream().close();
      standIns.waitFor(20, TimeUnit.SECONDS);
      standInsRunning = false;
      topics = TOPICS;
    }
    String table = String.join("\n", realisticRows);
    System.out.println(table);
    Files.writeString(out.resolve("realistic.md"), table + "\n");
  }

  /**
   * bench.hybrid: the stand-in's collection also holds the BM25 sparse vector, as collections this
   * service ingests do, so the service searches hybrid (its default there); no peer runs.
   */
  private static boolean hybrid() {
    return Boolean.getBoolean("bench.hybrid");
  }

  /** RAG_LOG_LEVEL of the services: bench.logLevel, WARN by default. */
  /** bench.qdrantAddresses: how many addresses the Qdrant stand-in answers on (the realistic rows). */
  private static int qdrantAddresses() {
    return Integer.getInteger("bench.qdrantAddresses", 1);
  }

  /**
   * JVM flags that make {@link #CLUSTER_NAME} resolve, in the service, to every address the Qdrant
   * stand-in listens on, as a headless Service's name does: a hosts file the JDK's resolver reads
   * (Vert.x's own resolver keeps one address per name from a hosts file, so it is turned off).
   */
  private static String clusterResolver(Path dir) throws IOException {
    Path hosts = dir.resolve("qdrant-hosts").toAbsolutePath();
    StringBuilder lines = new StringBuilder();
    for (int node = 1; node <= qdrantAddresses(); node++) {
      lines.append("127.0.0.").append(node).append(' ').append(CLUSTER_NAME).append('\n');
    }
    Files.writeString(hosts, lines);
    return "-Dvertx.disableDnsResolver=true -Djdk.net.hosts.file=" + hosts;
  }

  private static String logLevel() {
    String level = System.getProperty("bench.logLevel");
    return level == null || level.isBlank() ? "WARN" : level;
  }

  private void realisticHeader(int dim, long cohereMs, long qdrantMs, String manual, int chunks, String instances,
      boolean peer) throws Exception {
    realisticRows.add("# rag-retrieval bench: the realistic workload" + (peer ? ", beside the peer"
        : hybrid() ? " (no peer: LangChain4j's store cannot search a collection with a sparse vector)" : " (no peer: bench.peer unset)"));
    realisticRows.add("");
    realisticRows.add(String.format(Locale.ROOT, "%s; %d cores; load average before the run: %s; %d chunks of %s;"
            + " Cohere stand-in %d ms (dense %d-dimension vectors printed as Cohere prints them%s), Qdrant stand-in %d ms;"
            + " 5 results a question; %s; Qdrant at %s; RAG_HTTP_INSTANCES=%s; RAG_RESULT_CACHE_TTL_MS=%s; RAG_COALESCE_WINDOW_MS=%s; RAG_LOG_LEVEL=%s; service JVM options: %s; %d s per"
            + " row, the service's"
            + " load then the peer's.",
        Instant.now().toString().substring(0, 16).replace('T', ' ') + " UTC",
        Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).substring(0, 14).trim(),
        chunks, Path.of(manual).getFileName(), cohereMs, dim,
        Boolean.getBoolean("bench.cohereFloat") ? ", float only: embedding_types ignored" : ", or as base64 when asked",
        qdrantMs,
        hybrid() ? "hybrid collection (BM25 sparse vectors): the service searches hybrid"
            : "dense collection: both search dense",
        qdrantAddresses() > 1 ? String.format(Locale.ROOT, "%d addresses for the service (QDRANT_HOST %s: reads hedged"
            + " after qdrant.hedge_after_ms), 127.0.0.1 for the peer", qdrantAddresses(), CLUSTER_NAME) : "one address",
        instances == null ? "(default: processors)" : instances,
        System.getProperty("bench.resultCacheTtl", "(default)"), System.getProperty("bench.coalesceWindow", "(default)"),
        logLevel(), System.getProperty("bench.serviceJavaOptions", "(none)"), phase.toSeconds()));
    realisticRows.add(String.format(Locale.ROOT, "Machine check: SHA-256 of 64 MB took %.0f ms of CPU (best of 5).", machineCheckMs()));
    realisticRows.add("");
    realisticRows.add("| workload | clients | service req/s | service p99 ms | peer req/s | peer p99 ms | failed (service/peer)"
        + " | service CPU ms/req | peer CPU ms/req | ratio | goal |");
    realisticRows.add("|---|---|---|---|---|---|---|---|---|---|---|");
  }

  /**
   * One row: the service's load, then the peer's. A pair during which the hypervisor took more than
   * {@code bench.maxSteal} percent of the machine's CPU time from either load (another guest busy on
   * the host, so not the idle machine issue 19 asks for) is printed, marked, left out of the ratios,
   * and measured again, at most twice; the third attempt counts whatever its steal.
   */
  private void realisticRow(String name, int clients, boolean fresh, Process service, Process peer, List<String> loopRows,
      Map<String, List<Double>> ratios) throws Exception {
    double maxSteal = Double.parseDouble(System.getProperty("bench.maxSteal", "5"));
    for (int attempt = 1; attempt < 3; attempt++) {
      if (realisticPair(name, clients, fresh, service, peer, loopRows, ratios, maxSteal)) {
        return;
      }
    }
    realisticPair(name, clients, fresh, service, peer, loopRows, ratios, Double.POSITIVE_INFINITY);
  }

  /** One attempt at a row; whether it counted (neither load had more than {@code maxSteal} percent steal). */
  private boolean realisticPair(String name, int clients, boolean fresh, Process service, Process peer,
      List<String> loopRows, Map<String, List<Double>> ratios, double maxSteal) throws Exception {
    LongFunction<Future<Integer>> request = fresh ? n -> retrieve(uniqueQuestion()) : n -> retrieve(cachedQuestion(n));
    measure(service, SERVICE_PORT);
    long[] start = machineTicks();
    Result ours = load(clients, request, phase);
    long[] between = machineTicks();
    double ourSteal = stolenPercent(start, between);
    Result theirs = null;
    double theirSteal = 0;
    if (peer != null) {
      measure(peer, PEER_PORT);
      theirs = load(clients, request, phase);
      theirSteal = stolenPercent(between, machineTicks());
    }
    double steal = Math.max(ourSteal, theirSteal);
    boolean counted = steal <= maxSteal;
    String label = counted ? name : String.format(Locale.ROOT, "%s, steal %.1f%%: measured again", name, steal);
    double goal = fresh ? 0.25 : 0.12;
    String row = String.format(Locale.ROOT, "| %s | %d | %.0f | %.1f | %s | %s | %d/%s | %.3f | %s | %s | <= %.2f |",
        label, clients, ours.perSecond(), ours.p99(),
        theirs == null ? "" : String.format(Locale.ROOT, "%.0f", theirs.perSecond()),
        theirs == null ? "" : String.format(Locale.ROOT, "%.1f", theirs.p99()),
        ours.failed(), theirs == null ? "" : String.valueOf(theirs.failed()),
        ours.cpuMsPerRequest(),
        theirs == null ? "" : String.format(Locale.ROOT, "%.3f", theirs.cpuMsPerRequest()),
        // three decimals: at two, 0.2545 would print as 0.25 and read as meeting a goal of 0.25
        theirs == null ? "" : String.format(Locale.ROOT, "%.3f", ours.cpuMsPerRequest() / theirs.cpuMsPerRequest()),
        goal);
    realisticRows.add(row);
    System.out.println(row);
    if (theirs != null && counted) {
      ratios.computeIfAbsent((fresh ? "new questions" : "repeated questions") + ", " + clients + " clients",
          ignored -> new ArrayList<>()).add(ours.cpuMsPerRequest() / theirs.cpuMsPerRequest());
    }
    loopRows.add(String.format(Locale.ROOT, "| %s | %d | %s | %s | %.3f | %s | %.1f%s | %s | %s | %s |", label, clients,
        ours.embedCalls() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", (double) ours.embedInputs() / ours.embedCalls()),
        !fresh || ours.searchCalls() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", (double) ours.completed() / ours.searchCalls()),
        ours.systemMsPerRequest(), theirs == null ? "" : String.format(Locale.ROOT, "%.3f", theirs.systemMsPerRequest()),
        ourSteal, theirs == null ? "" : String.format(Locale.ROOT, " / %.1f", theirSteal),
        ours.eventLoops(), ours.otherPools(), theirs == null ? "" : theirs.pools()));
    return counted;
  }

  /** The machine's CPU time so far, in ticks, by kind: the first line of /proc/stat ({@code cpu user nice system idle ...}). */
  private static long[] machineTicks() throws IOException {
    String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long[] ticks = new long[fields.length - 1];
    for (int i = 1; i < fields.length; i++) {
      ticks[i - 1] = Long.parseLong(fields[i]);
    }
    return ticks;
  }

  /**
   * Of the machine's CPU time between two readings, the share the hypervisor gave to other guests
   * ({@code steal}, the eighth value): on a shared host, slices with more of it may also find the
   * caches of the cores they do get colder.
   */
  private static double stolenPercent(long[] before, long[] after) {
    long all = 0;
    // user, nice, system, idle, iowait, irq, softirq, steal; guest time is already in user
    for (int i = 0; i < 8 && i < after.length; i++) {
      all += after[i] - before[i];
    }
    return all == 0 || after.length < 8 ? 0 : 100.0 * (after[7] - before[7]) / all;
  }

  /** The next loads go to {@code process} on {@code port}, and its CPU is what they measure. */
  private void measure(Process process, int processPort) {
    measured = process;
    port = processPort;
    // each load on connections of its own: a connection left idle while the other process was
    // measured may be closed by its server just as the load sends on it. The peer's JDK HttpServer
    // closes connections idle over 30 s, at a 10-s tick; the peer's failed requests in the first row
    // of some runs (5 to 35) ended so: HttpClosedException, a few ms after they were sent.
    HttpClient old = http;
    http = newClient();
    old.close();
  }

  private HttpClient newClient() {
    return vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setConnectTimeout(5000),
        new PoolOptions().setHttp1MaxSize(600));
  }

  /** The peer ({@code /work/shared/peer}): its class comment names the settings. */
  private Process startPeer(String jar, Path log) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(javaBin(), "-jar", jar)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(key -> key.startsWith("QDRANT_") || key.startsWith("COHERE_") || key.startsWith("PEER_"));
    env.put("QDRANT_HOST", "127.0.0.1");
    env.put("QDRANT_GRPC_PORT", String.valueOf(QDRANT_PORT));
    env.put("QDRANT_COLLECTION", TestStack.COLLECTION);
    env.put("COHERE_API_KEY", TestStack.COHERE_KEY);
    env.put("COHERE_BASE_URL", "http://127.0.0.1:" + COHERE_PORT);
    env.put("PORT", String.valueOf(PEER_PORT));
    Process peer = builder.start();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      if (!peer.isAlive()) {
        throw new IllegalStateException("the peer exited; see " + log);
      }
      try {
        int status = http.request(HttpMethod.GET, PEER_PORT, "127.0.0.1", "/health")
            .compose(request -> request.send()).map(response -> response.statusCode())
            .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        if (status == 200) {
          return peer;
        }
      } catch (Exception notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("the peer was not up within 2 minutes; see " + log);
  }

  // --- requests ---

  private String uniqueQuestion() {
    long n = unique.incrementAndGet();
    return topics[(int) (n % topics.length)] + " question " + n;
  }

  private String cachedQuestion(long n) {
    return topics[(int) (n % topics.length)];
  }

  private static JsonObject body(String question) {
    // threshold 0: every answer carries top_k = 5 chunks, whatever the question
    return new JsonObject().put("query", question).put("top_k", 5).put("score_threshold", 0.0);
  }

  private Future<Integer> retrieve(String question) {
    return post(retrieveUri, "application/json", body(question).toBuffer(), null);
  }

  private Future<Integer> stream(String question) {
    return post("/v1/retrieve", "text/event-stream", body(question).toBuffer(), "event: done");
  }

  private Future<Integer> batch(int questions) {
    JsonArray queries = new JsonArray();
    for (int i = 0; i < questions; i++) {
      queries.add(body(uniqueQuestion()));
    }
    return post("/v1/retrieve/batch", "application/json", new JsonObject().put("queries", queries).toBuffer(), null);
  }

  private Future<Integer> post(String uri, String accept, Buffer body, String mustContain) {
    return http.request(HttpMethod.POST, port, "127.0.0.1", uri)
        .compose(request -> request
            .putHeader("Content-Type", "application/json")
            .putHeader("Accept", accept)
            .send(body))
        .compose(response -> response.body().map(answer -> mustContain == null
            || answer.toString(StandardCharsets.UTF_8).contains(mustContain) ? response.statusCode() : 599));
  }

  // --- measurement ---

  /** {@code concurrency} loops, each sending its next request when the last one is answered, for {@code length}. */
  private Result load(int concurrency, LongFunction<Future<Integer>> request, Duration length) throws Exception {
    return load(concurrency, request, length, new Latencies());
  }

  /** As above; the percentiles are over {@code latencies}, which may hold earlier rounds of the same phase. */
  private Result load(int concurrency, LongFunction<Future<Integer>> request, Duration length, Latencies latencies)
      throws Exception {
    long[] cpuBefore = cpuTicks();
    Map<String, Long> poolsBefore = poolTicks();
    JsonObject countsBefore = counts();
    long end = System.nanoTime() + length.toNanos();
    AtomicLong sent = new AtomicLong();
    int answeredBefore = latencies.size();
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
    long[] cpuAfter = cpuTicks();
    Map<String, Long> poolsAfter = poolTicks();
    JsonObject countsAfter = counts();
    long completed = latencies.size() - answeredBefore;
    double cpuMs = (cpuAfter[0] - cpuBefore[0]) * 1000.0 / ticksPerSecond;
    double loopMs = (cpuAfter[1] - cpuBefore[1]) * 1000.0 / ticksPerSecond;
    double systemMs = (cpuAfter[3] - cpuBefore[3]) * 1000.0 / ticksPerSecond;
    long calls = countsAfter.getLong("calls", 0L) - countsBefore.getLong("calls", 0L);
    long inputs = countsAfter.getLong("inputs", 0L) - countsBefore.getLong("inputs", 0L);
    long searches = countsAfter.getLong("searches", 0L) - countsBefore.getLong("searches", 0L);
    return new Result(concurrency, completed, failures.get(), seconds, latencies.percentile(0.5),
        latencies.percentile(0.99), cpuMs, loopMs, systemMs, rssMb(), calls, inputs, searches, poolMs(poolsBefore, poolsAfter));
  }

  private void next(LongFunction<Future<Integer>> request, long end, AtomicLong sent, Latencies latencies,
      AtomicLong failures, Promise<Void> done) {
    if (System.nanoTime() >= end || sent.get() >= MAX_REQUESTS_PER_PHASE) {
      done.complete();
      return;
    }
    long start = System.nanoTime();
    request.apply(sent.incrementAndGet()).onComplete(outcome -> {
      if (outcome.succeeded() && outcome.result() == 200) {
        latencies.add(System.nanoTime() - start);
      } else if (failures.incrementAndGet() == 1) {
        // the first of a load's failures says what they were (the peer's, seen in some rows, said nothing in its log)
        System.out.printf("a request to %s failed after %d ms: %s%n", measured == service ? "the service" : "the peer",
            (System.nanoTime() - start) / 1_000_000, outcome.succeeded() ? "HTTP " + outcome.result() : outcome.cause());
      }
      next(request, end, sent, latencies, failures, done);
    });
  }

  /**
   * utime + stime in clock ticks (fields 14 and 15 of /proc/PID/stat): [0] the whole service
   * process, [1] its Vert.x event-loop and worker threads only, where requests are served (the
   * rest is GC, the JIT compiler and timers), [2] the JIT compiler threads.
   */
  private long[] cpuTicks() throws IOException {
    long requestThreads = 0;
    long compiler = 0;
    try (var tasks = Files.list(Path.of("/proc", String.valueOf(measured.pid()), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).trim();
          if (name.startsWith("vert.x-eventloo") || name.startsWith("vert.x-worker")) {
            requestThreads += ticks(Files.readString(task.resolve("stat")));
          } else if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
            compiler += ticks(Files.readString(task.resolve("stat")));
          }
        } catch (IOException threadEnded) {
          // a thread may end between the listing and the read
        }
      }
    }
    String process = Files.readString(Path.of("/proc", String.valueOf(measured.pid()), "stat"));
    return new long[] {ticks(process), requestThreads, compiler, systemTicks(process)};
  }

  /**
   * The measured process's CPU ticks by thread pool: a thread's name without its number
   * ("rag-local-embed", "GC Thread#"; Linux keeps 15 characters of it). Each Vert.x event loop
   * counts on its own, as "eventloop tid N" (Linux cuts all their names to "vert.x-eventloo"):
   * whether every event loop carries HTTP work shows there.
   */
  private Map<String, Long> poolTicks() throws IOException {
    Map<String, Long> pools = new TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc", String.valueOf(measured.pid()), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).trim();
          String pool = name.startsWith("vert.x-eventloo") ? "eventloop tid " + task.getFileName()
              : name.replaceAll("[-#]?[0-9]+$", "");
          pools.merge(pool, ticks(Files.readString(task.resolve("stat"))), Long::sum);
        } catch (IOException threadEnded) {
          // a thread may end between the listing and the read
        }
      }
    }
    return pools;
  }

  /** CPU ms each pool used between two counts (threads that ended meanwhile are missed). */
  private Map<String, Double> poolMs(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Double> used = new TreeMap<>();
    after.forEach((pool, ticks) -> {
      long delta = ticks - before.getOrDefault(pool, 0L);
      if (delta > 0) {
        used.put(pool, delta * 1000.0 / ticksPerSecond);
      }
    });
    return used;
  }

  private static long ticks(String stat) {
    String[] fields = statFields(stat);
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /** stime alone: the kernel's share (system calls, the loopback TCP stack) of {@link #ticks}. */
  private static long systemTicks(String stat) {
    return Long.parseLong(statFields(stat)[12]);
  }

  private static String[] statFields(String stat) {
    // the command name (field 2) may hold spaces; fields after it start past the last ')'
    return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
  }

  private double rssMb() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(measured.pid()), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    return 0;
  }

  /** Calls and inputs the Cohere stand-in has received; without the stand-ins, the local model's turns and texts. */
  private JsonObject counts() {
    if (!standInsRunning) {
      return localModelCounts();
    }
    Exception last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return Await.onLoop(vertx, () -> http.request(HttpMethod.GET, CONTROL_PORT, "127.0.0.1", "/counts")
            .compose(request -> request.send())
            .compose(response -> response.body())
            .map(Buffer::toJsonObject))
            .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      } catch (Exception e) {
        last = e; // a busy machine can starve the stand-ins' event loop for seconds
      }
    }
    throw new IllegalStateException("the stand-ins do not answer /counts", last);
  }

  /**
   * Without stand-ins (the embedded default): the local model's turns as "calls" and the texts
   * they embedded as "inputs", from the service's /metrics; none when it does not answer.
   */
  private JsonObject localModelCounts() {
    try {
      String metrics = Await.onLoop(vertx, () -> http.request(HttpMethod.GET, port, "127.0.0.1", "/metrics")
          .compose(request -> request.send())
          .compose(response -> response.body())
          .map(Buffer::toString))
          .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      JsonObject counts = new JsonObject();
      for (String line : metrics.split("\n")) {
        if (line.startsWith("rag_local_embedding_batch_texts_count")) {
          counts.put("calls", (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
        } else if (line.startsWith("rag_local_embedding_batch_texts_sum")) {
          counts.put("inputs", (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
        }
      }
      return counts;
    } catch (Exception e) {
      return new JsonObject();
    }
  }

  private void report(String name, Result result) {
    rows.add(String.format(Locale.ROOT, "| %s | %d | %.0f | %.1f | %.1f | %d | %.3f | %.3f | %.0f | %.2f | %.2f |",
        name, result.clients(), result.perSecond(), result.p50(), result.p99(), result.failed(),
        result.cpuMsPerRequest(), result.loopMsPerRequest(), result.rssMb(), result.perRequest(result.embedCalls()),
        result.perRequest(result.embedInputs())));
    System.out.println(rows.get(rows.size() - 1));
    poolRows.add(String.format(Locale.ROOT, "| %s | %d | %s |", name, result.clients(), result.pools()));
  }

  // --- processes ---

  /** {@code args}: dimension, Cohere delay, Qdrant delay, and for the realistic workload the manual's folder and chunk count. */
  private static Process startStandIns(Path out, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(javaBin(), "-Xmx2g", "-cp", System.getProperty("java.class.path"),
        "-Dstandins.qdrantAddresses=" + qdrantAddresses(), "-Dstandins.cohereFloat=" + Boolean.getBoolean("bench.cohereFloat"),
        StandIns.class.getName(), String.valueOf(QDRANT_PORT), String.valueOf(COHERE_PORT),
        String.valueOf(CONTROL_PORT)));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .start();
    BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = lines.readLine()) != null && !line.equals("ready")) {
      // startup logging
    }
    if (line == null) {
      throw new IllegalStateException("the stand-ins did not start");
    }
    // Keep draining what they print: once a full pipe blocks their logger, their event loop stops
    // and /counts (and every upstream call) hangs.
    Thread drain = new Thread(() -> {
      try (var sink = Files.newBufferedWriter(out.resolve("stand-ins.log"), StandardCharsets.UTF_8)) {
        String next;
        while ((next = lines.readLine()) != null) {
          sink.write(next);
          sink.newLine();
        }
      } catch (IOException e) {
        // the stand-ins have gone
      }
    }, "stand-ins-output");
    drain.setDaemon(true);
    drain.start();
    return process;
  }

  /** The service's JVM flags (bench.serviceJavaOptions; the B flags for every other restarted process). */
  private String serviceJavaOptions = System.getProperty("bench.serviceJavaOptions", "");

  private void startService(String jar, Path log, int servicePort, Map<String, String> settings) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(javaBin(), "-jar", jar, "serve")
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    // the service must see only the bench's settings, not a developer's shell
    env.keySet().removeIf(key -> key.startsWith("RAG_") || key.startsWith("QDRANT_") || key.startsWith("COHERE_")
        || key.startsWith("OPENAI_") || key.startsWith("EMBEDDING_"));
    env.put("RAG_HTTP_PORT", String.valueOf(servicePort));
    env.put("RAG_MAX_IN_FLIGHT", "10000");
    // WARN unless asked: at INFO every request writes its request-log line, which is measured apart
    env.put("RAG_LOG_LEVEL", logLevel());
    env.putAll(new HashMap<>(settings));
    // JVM flags for the service alone (say, the collector a deployment's container gets); the
    // stand-ins, the peer and the load keep theirs
    env.remove("JDK_JAVA_OPTIONS");
    String javaOptions = (serviceJavaOptions + " "
        + (CLUSTER_NAME.equals(settings.get("QDRANT_HOST")) ? clusterResolver(log.getParent()) : "")).trim();
    if (!javaOptions.isBlank()) {
      env.put("JDK_JAVA_OPTIONS", javaOptions);
    }
    service = builder.start();
    measured = service;
    port = servicePort;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (System.nanoTime() < deadline) {
      if (!service.isAlive()) {
        throw new IllegalStateException("the service exited; see " + log);
      }
      try {
        int status = http.request(HttpMethod.GET, port, "127.0.0.1", "/health/ready")
            .compose(request -> request.send()).map(response -> response.statusCode())
            .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        if (status == 200) {
          return;
        }
      } catch (Exception notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("the service was not ready within 5 minutes; see " + log);
  }

  private void stopService() throws InterruptedException {
    if (service != null && service.isAlive()) {
      service.destroy();
      if (!service.waitFor(30, TimeUnit.SECONDS)) {
        service.destroyForcibly();
      }
    }
    service = null;
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
    }
    return output;
  }

  /** Latencies in a growing primitive array: a phase may complete hundreds of thousands of requests. */
  private static final class Latencies {
    private long[] nanos = new long[1 << 16];
    private int size;

    synchronized void add(long value) {
      if (size == nanos.length) {
        nanos = java.util.Arrays.copyOf(nanos, size * 2);
      }
      nanos[size++] = value;
    }

    synchronized int size() {
      return size;
    }

    synchronized double percentile(double p) {
      if (size == 0) {
        return 0;
      }
      long[] sorted = java.util.Arrays.copyOf(nanos, size);
      java.util.Arrays.sort(sorted);
      return sorted[(int) Math.min(size - 1, Math.floor(p * size))] / 1e6;
    }
  }

  /** One phase: completed and failed requests, latency in ms, the service's CPU ms over the phase. */
  private record Result(int clients, long completed, long failed, double seconds, double p50, double p99,
      double cpuMs, double loopMs, double systemMs, double rssMb, long embedCalls, long embedInputs, long searchCalls,
      Map<String, Double> poolMs) {

    /** The five pools that used the most CPU, in ms per request. */
    String pools() {
      return poolMs.entrySet().stream()
          .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
          .limit(5)
          .map(e -> String.format(Locale.ROOT, "%s %.3f", e.getKey(), completed == 0 ? 0 : e.getValue() / completed))
          .collect(java.util.stream.Collectors.joining(", "));
    }

    /** Every Vert.x event loop's CPU per request, busiest first. */
    String eventLoops() {
      return perRequest(poolMs.entrySet().stream().filter(e -> e.getKey().startsWith("eventloop tid ")), Integer.MAX_VALUE);
    }

    /** The five busiest pools other than the event loops. */
    String otherPools() {
      return perRequest(poolMs.entrySet().stream().filter(e -> !e.getKey().startsWith("eventloop tid ")), 5);
    }

    private String perRequest(java.util.stream.Stream<Map.Entry<String, Double>> pools, int limit) {
      return pools
          .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
          .limit(limit)
          .map(e -> String.format(Locale.ROOT, "%s %.3f", e.getKey(), completed == 0 ? 0 : e.getValue() / completed))
          .collect(java.util.stream.Collectors.joining(", "));
    }

    double perSecond() {
      return completed / seconds;
    }

    double cpuMsPerRequest() {
      return completed == 0 ? 0 : cpuMs / completed;
    }

    /** The kernel's part of {@link #cpuMsPerRequest}. */
    double systemMsPerRequest() {
      return completed == 0 ? 0 : systemMs / completed;
    }

    double loopMsPerRequest() {
      return completed == 0 ? 0 : loopMs / completed;
    }

    double perRequest(long count) {
      return completed == 0 ? 0 : (double) count / completed;
    }

    /** This round added to the {@code earlier} rounds of the same phase (null: none); latencies are already over all. */
    Result after(Result earlier) {
      if (earlier == null) {
        return this;
      }
      Map<String, Double> pools = new TreeMap<>(earlier.poolMs);
      poolMs.forEach((pool, ms) -> pools.merge(pool, ms, Double::sum));
      return new Result(clients, earlier.completed + completed, earlier.failed + failed, earlier.seconds + seconds,
          p50, p99, earlier.cpuMs + cpuMs, earlier.loopMs + loopMs, earlier.systemMs + systemMs, rssMb, earlier.embedCalls + embedCalls,
          earlier.embedInputs + embedInputs, earlier.searchCalls + searchCalls, pools);
    }

    /** The same phase counted in questions ({@code n} per batch request). */
    Result times(int n) {
      return new Result(clients, completed * n, failed * n, seconds, p50, p99, cpuMs, loopMs, systemMs, rssMb, embedCalls,
          embedInputs, searchCalls, poolMs);
    }
  }
}
