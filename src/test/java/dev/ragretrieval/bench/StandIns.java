package dev.ragretrieval.bench;

import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.qdrant.QdrantVectorStore;
import dev.ragretrieval.testing.QdrantTestServer;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import dev.ragretrieval.ingest.Chunk;
import dev.ragretrieval.ingest.Chunker;
import dev.ragretrieval.ingest.HtmlReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The bench's upstreams in a process of their own, so the service's CPU counters measure the
 * service alone: the tests' gRPC {@link QdrantTestServer} seeded with {@link TestStack#CHUNKS}, the
 * {@link CohereTestServer} answering after a fixed delay, and a control port whose
 * {@code GET /counts} says how many embed calls and inputs Cohere has received.
 *
 * <p>Arguments: qdrant port, cohere port, control port, dimension, cohere delay ms, qdrant delay ms,
 * and for the realistic workload a folder of HTML pages and how many chunks to seed: the pages are
 * read and chunked by the service's own ingest code ({@link HtmlReader}, {@link Chunker}), so the
 * points carry the payload an ingest writes, and Cohere answers dense vectors printed as Cohere
 * prints them, or in base64 as the service asks ({@link CohereTestServer#cohereFloats}).
 * With {@code -Dstandins.qdrantAddresses=n}, the Qdrant stand-in also listens on 127.0.0.2 to
 * 127.0.0.n, same port, same store. Prints {@code ready} once every port listens; stops when stdin
 * closes (the bench has gone).
 */
public final class StandIns {

  private StandIns() {}

  public static void main(String[] args) throws Exception {
    int qdrantPort = Integer.parseInt(args[0]);
    int coherePort = Integer.parseInt(args[1]);
    int controlPort = Integer.parseInt(args[2]);
    int dimension = Integer.parseInt(args[3]);
    long cohereMs = Long.parseLong(args[4]);
    long qdrantMs = Long.parseLong(args[5]);
    Vertx vertx = Vertx.vertx();
    QdrantTestServer qdrant = QdrantTestServer.start(vertx, qdrantPort, null)
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    // a cluster's addresses (127.0.0.2, ...) for a service whose QDRANT_HOST names them all
    for (int node = 2; node <= Integer.getInteger("standins.qdrantAddresses", 1); node++) {
      qdrant.alsoListen("127.0.0." + node).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    // one server per event loop: the service's 32 connections (and the peer's) spread over them
    CohereTestServer cohere = CohereTestServer.start(vertx, TestStack.COHERE_KEY, dimension, coherePort,
            2 * Runtime.getRuntime().availableProcessors())
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    cohere.recordRequests(false);
    // BENCH_COHERE_FLOAT: an endpoint that answers float whatever embedding_types asks for
    cohere.ignoreEmbeddingTypes(Boolean.getBoolean("standins.cohereFloat"));
    qdrant.recordQueries(false);
    cohere.delay(Duration.ofMillis(cohereMs));
    qdrant.delay(Duration.ofMillis(qdrantMs));
    // "hybrid": a collection as this service's ingest makes one, with the BM25 sparse vector
    boolean hybrid = args.length > 8 && args[8].equals("hybrid");
    if (hybrid) {
      qdrant.createHybridCollection(TestStack.COLLECTION, dimension, QdrantVectorStore.SPARSE);
    } else {
      qdrant.createCollection(TestStack.COLLECTION, dimension);
    }
    if (args.length > 7) {
      cohere.cohereFloats(true);
      List<String> texts = seedManual(qdrant, Path.of(args[6]), Integer.parseInt(args[7]), dimension, hybrid);
      long started = System.nanoTime();
      List<String> questions = poolQuestions(texts);
      qdrant.rememberRankings(TestStack.COLLECTION, cohere.vectorPool(questions));
      System.err.printf("%d pooled query vectors printed and ranked in %d ms%n", questions.size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    } else {
      for (int i = 0; i < TestStack.CHUNKS.length; i++) {
        String id = UUID.nameUUIDFromBytes(("chunk-" + i).getBytes(StandardCharsets.UTF_8)).toString();
        qdrant.upsert(TestStack.COLLECTION, id, CohereTestServer.vectorFor(TestStack.CHUNKS[i][2], dimension),
            TestStack.payload(i));
      }
    }
    vertx.createHttpServer()
        .requestHandler(request -> request.response().putHeader("Content-Type", "application/json")
            .end(control(request.path(), qdrant, cohere).encode()))
        .listen(controlPort, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() >= 0) {
      // the bench holds our stdin open while it needs us
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Query vectors the Cohere stand-in answers from: new questions get distinct vectors until this many. */
  private static final int POOL = 4096;
  private static final int POOL_WORDS = 12;

  /**
   * Question-like texts for the pool: runs of {@value #POOL_WORDS} words from the seeded chunks,
   * chunk after chunk, then further into each chunk, so each pooled vector ranks the manual as a
   * question about one passage would.
   */
  private static List<String> poolQuestions(List<String> texts) {
    List<String[]> words = texts.stream().map(t -> t.split("\\s+")).toList();
    List<String> out = new java.util.ArrayList<>(POOL);
    for (int start = 0; out.size() < POOL; start += POOL_WORDS) {
      int before = out.size();
      for (String[] w : words) {
        if (out.size() == POOL) {
          break;
        }
        if (start + POOL_WORDS <= w.length) {
          out.add(String.join(" ", java.util.Arrays.copyOfRange(w, start, start + POOL_WORDS)));
        }
      }
      if (out.size() == before) {
        break; // no chunk is that long
      }
    }
    return out;
  }

  /**
   * The control port: {@code /points/C} answers collection C's point ids with their
   * {@code content_hash} and {@code page_hash} (the ingest bench compares collections);
   * {@code /fail429} makes Cohere answer the next 3 calls 429 with Retry-After 1; anything else
   * answers the counts: embed calls and inputs, Qdrant search calls (Query and QueryBatch) and write calls.
   */
  private static JsonObject control(String path, QdrantTestServer qdrant, CohereTestServer cohere) {
    if (path.startsWith("/points/")) {
      String collection = path.substring("/points/".length());
      JsonObject points = new JsonObject();
      if (qdrant.collectionExists(collection)) {
        for (String id : qdrant.ids(collection)) {
          var payload = qdrant.payload(collection, id);
          points.put(id, text(payload.get("content_hash")) + "/" + text(payload.get("page_hash")));
        }
      }
      return points;
    }
    if (path.equals("/fail429")) {
      cohere.failNext(3, 429, "1");
    }
    return new JsonObject().put("calls", cohere.callCount()).put("inputs", cohere.inputCount())
        .put("searches", qdrant.callCount("Query") + qdrant.callCount("QueryBatch"))
        .put("upserts", qdrant.callCount("Upsert")).put("deletes", qdrant.callCount("Delete"))
        .put("set_payloads", qdrant.callCount("SetPayload"));
  }

  private static String text(io.qdrant.client.grpc.JsonWithInt.Value value) {
    return value == null ? "" : value.getStringValue();
  }

  /**
   * The first {@code chunks} chunks of the manual's pages, in path order, as an ingest would store
   * them. Sizes are reported on stderr, which the bench keeps in stand-ins.log.
   */
  private static List<String> seedManual(QdrantTestServer qdrant, Path root, int chunks, int dimension, boolean hybrid)
      throws IOException {
    long chars = 0;
    List<String> texts = new java.util.ArrayList<>();
    for (Chunk chunk : manualChunks(root, chunks)) {
      float[] vector = CohereTestServer.denseVectorFor(chunk.embedText(), dimension);
      if (hybrid) {
        qdrant.upsert(TestStack.COLLECTION, chunk.pointId(), vector, chunk.payload(), QdrantVectorStore.SPARSE,
            KeywordText.of(chunk.payload()));
      } else {
        qdrant.upsert(TestStack.COLLECTION, chunk.pointId(), vector, chunk.payload());
      }
      chars += chunk.payload().getString("text").length();
      texts.add(chunk.payload().getString("text"));
    }
    System.err.printf("seeded %d chunks of %s, %d chars of text each on average%n", chunks, root, chars / chunks);
    return texts;
  }

  /**
   * The first {@code chunks} chunks of the pages under {@code root}, in path order, read and chunked
   * by the ingest code (the realistic workload's points; {@link AnswerPathBench} builds its answers
   * from the same).
   */
  static List<Chunk> manualChunks(Path root, int chunks) throws IOException {
    List<Path> pages;
    try (Stream<Path> files = Files.walk(root)) {
      pages = files.filter(f -> f.toString().endsWith(".html")).sorted().toList();
    }
    Chunker chunker = new Chunker();
    List<Chunk> found = new java.util.ArrayList<>(chunks);
    for (Path page : pages) {
      String url = "https://docs.python.org/3.11/" + root.relativize(page).toString().replace('\\', '/');
      for (Chunk chunk : chunker.chunk(HtmlReader.read(url, Files.readString(page)))) {
        found.add(chunk);
        if (found.size() == chunks) {
          return found;
        }
      }
    }
    throw new IllegalStateException(root + " holds only " + found.size() + " chunks; " + chunks + " wanted");
  }
}
