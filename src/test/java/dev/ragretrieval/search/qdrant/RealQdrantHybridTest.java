package dev.ragretrieval.search.qdrant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.embedding.EmbeddingVerticle;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.eval.EvalCase;
import dev.ragretrieval.eval.EvalReport;
import dev.ragretrieval.eval.Evaluator;
import dev.ragretrieval.eval.InProcessRetriever;
import dev.ragretrieval.eval.Retriever;
import dev.ragretrieval.ingest.Chunker;
import dev.ragretrieval.ingest.Ingestor;
import dev.ragretrieval.ingest.Progress;
import dev.ragretrieval.ingest.SampleBook;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.search.KeywordAnalysis;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchMode;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestBm25;
import dev.ragretrieval.testing.RealQdrant;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Hybrid search on a real Qdrant 1.18.1 (skipped, saying why, where the binary is absent): the
 * sample book ingested once through the service's Ingestor with the local ONNX embedder, so the
 * vectors are real, then its 58 questions through the retrieval pipeline. The server is an
 * unoptimised build, so the class keeps to one ingest and a few hundred searches.
 */
class RealQdrantHybridTest {

  private static final String COLLECTION = "book";

  private static RealQdrant qdrant;
  private static Vertx vertx;
  private static EmbeddingProvider provider;
  private static EmbeddingClient embeddings;
  private static QdrantVectorStore store;
  private static RetrievalService service;
  private static AppConfig config;
  private static List<EvalCase> questions;
  private static List<float[]> questionVectors;

  @BeforeAll
  static void ingestTheBook() throws Exception {
    qdrant = RealQdrant.single();
    vertx = Vertx.vertx();
    config = ConfigLoader.fromJson(new JsonObject(), Map.of("EMBEDDING_PROVIDER", "local",
        "QDRANT_HOST", qdrant.host(), "QDRANT_GRPC_PORT", Integer.toString(qdrant.grpcPort())));
    provider = await(vertx.executeBlocking(() -> EmbeddingProviders.create(vertx, config.embedding(), RagMetrics.detached())), 120);
    await(EmbeddingVerticle.deploy(vertx, provider), 60);
    embeddings = new EmbeddingClient(vertx);
    store = new QdrantVectorStore(vertx, config.qdrant(), RagMetrics.detached());
    service = new RetrievalService(embeddings, store, config);
    Ingestor ingestor = new Ingestor(vertx, store, embeddings::embed, Progress.NONE);
    Ingestor.Summary summary = await(ingestor.ingest(SampleBook.pages(),
        Ingestor.Options.of(COLLECTION, true, config.retrieval().filterKeys())), 600);
    assertThat(summary.ok()).as(String.join("; ", summary.errors())).isTrue();
    try (InputStream in = RealQdrantHybridTest.class.getClassLoader().getResourceAsStream("sample-book/eval.json")) {
      questions = EvalCase.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    questionVectors = await(embeddings.embed(questions.stream().map(EvalCase::query).toList(), InputType.SEARCH_QUERY,
        Deadline.in(Duration.ofMinutes(2))), 120).vectors();
  }

  @AfterAll
  static void stop() {
    if (store != null) {
      await(store.close(), 20);
    }
    if (provider != null) {
      await(provider.close(), 20);
    }
    if (vertx != null) {
      await(vertx.close(), 20);
    }
    if (qdrant != null) {
      qdrant.close();
    }
  }

  @Test
  @DisplayName("real Qdrant: on the sample book's 58 questions both modes answer, hybrid runs hybrid, and its MRR@10 is at least dense's")
  void hybridAtLeastDense() {
    EvalReport dense = evaluate("dense");
    EvalReport hybrid = evaluate("hybrid");

    System.out.printf("real Qdrant, sample book: dense hit@1 %.3f MRR@10 %.3f; hybrid hit@1 %.3f MRR@10 %.3f%n",
        dense.overall().hitAt1(), dense.overall().mrr(), hybrid.overall().hitAt1(), hybrid.overall().mrr());
    assertThat(questions).hasSizeGreaterThanOrEqualTo(20);
    assertThat(dense.overall().errors()).isZero();
    assertThat(hybrid.overall().errors()).isZero();
    assertThat(dense.searchModesUsed()).containsExactly("dense");
    assertThat(hybrid.searchModesUsed()).containsExactly("hybrid");
    assertThat(hybrid.overall().mrr()).as("hybrid MRR@10 vs dense").isGreaterThanOrEqualTo(dense.overall().mrr());
  }

  @Test
  @DisplayName("real Qdrant: two identical hybrid requests return the same order, for every question, batched or not")
  void sameOrderTwice() {
    List<SearchRequest> requests = new ArrayList<>();
    for (int i = 0; i < questions.size(); i++) {
      requests.add(hybrid(i, 10, Fusion.DEFAULT));
    }
    List<List<String>> first = ids(await(store.searchBatch(requests), 60));
    List<List<String>> second = ids(await(store.searchBatch(requests), 60));
    List<List<String>> singles = new ArrayList<>();
    for (SearchRequest request : requests) {
      singles.add(await(store.search(request), 20).stream().map(ScoredPoint::id).toList());
    }

    assertThat(first).allSatisfy(hits -> assertThat(hits).hasSize(10));
    assertThat(second).isEqualTo(first);
    assertThat(singles).isEqualTo(first);
  }

  @Test
  @DisplayName("real Qdrant: the fused page's margin settles the cut: the 58 questions' hybrid searches need no second call (top_k 5, 10, 20)")
  void pagesSettleWithoutAskingAgain() {
    for (int k : new int[] {5, 10, 20}) {
      io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
          new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
      QdrantVectorStore counted = new QdrantVectorStore(vertx, config.qdrant(), new RagMetrics(registry));
      List<SearchRequest> requests = new ArrayList<>();
      for (int i = 0; i < questions.size(); i++) {
        requests.add(hybrid(i, k, Fusion.DEFAULT));
      }
      List<List<ScoredPoint>> results = await(counted.searchBatch(requests), 60);
      await(counted.close(), 20);

      // a page asked again is a call of its own ("search"); the batch is "search_batch"
      assertThat(calls(registry, "search")).as("pages asked again, top_k " + k).isZero();
      assertThat(calls(registry, "search_batch")).isPositive();
      assertThat(results).allSatisfy(hits -> assertThat(hits).hasSize(k));
    }
  }

  private static long calls(io.micrometer.core.instrument.MeterRegistry registry, String operation) {
    return registry.find("rag_vector_store_duration_seconds").tag("operation", operation).timers().stream()
        .mapToLong(io.micrometer.core.instrument.Timer::count).sum();
  }

  @Test
  @DisplayName("real Qdrant: each hybrid hit is one of its dense candidates, and its score is that candidate's cosine")
  void hybridScoresAreDenseCosines() {
    List<SearchRequest> hybrid = new ArrayList<>();
    List<SearchRequest> dense = new ArrayList<>();
    for (int i = 0; i < questions.size(); i++) {
      SearchRequest request = hybrid(i, 10, Fusion.DEFAULT);
      hybrid.add(request);
      dense.add(new SearchRequest(COLLECTION, request.vector(), Fusion.DEFAULT.candidatesFor(10), 0f, Map.of(),
          request.deadline(), request.text(), SearchMode.DENSE));
    }
    List<List<ScoredPoint>> fused = await(store.searchBatch(hybrid), 60);
    List<List<ScoredPoint>> candidates = await(store.searchBatch(dense), 60);

    for (int i = 0; i < questions.size(); i++) {
      Map<String, Float> cosines = new java.util.HashMap<>();
      candidates.get(i).forEach(hit -> cosines.put(hit.id(), hit.score()));
      assertThat(fused.get(i)).hasSize(10).allSatisfy(hit -> {
        assertThat(cosines).containsKey(hit.id());
        assertThat(hit.score()).isCloseTo(cosines.get(hit.id()), within(1e-6f));
      });
    }
  }

  @Test
  @DisplayName("real Qdrant: the fused scores are Fusion's formula over the two prefetch lists (k and weights honoured)")
  void fusionFormulaHonoured() {
    Fusion fusion = new Fusion(10, 1.0, 0.5, 20);
    for (int i = 0; i < 5; i++) {
      JsonArray vector = new JsonArray();
      for (float v : questionVectors.get(i)) {
        vector.add(v);
      }
      JsonObject document = new JsonObject().put("text", questions.get(i).query()).put("model", "qdrant/bm25")
          .put("options", KeywordAnalysis.qdrantOptions(avgLen()));
      JsonObject denseQuery = new JsonObject().put("query", vector).put("limit", 20);
      JsonObject keywordQuery = new JsonObject().put("query", new JsonObject().put("nearest", document))
          .put("using", QdrantVectorStore.SPARSE).put("limit", 20);
      List<String> dense = restIds(query(denseQuery));
      List<String> keyword = restIds(query(keywordQuery));
      JsonArray fused = query(new JsonObject()
          .put("prefetch", new JsonArray().add(denseQuery).add(keywordQuery))
          .put("query", new JsonObject().put("rrf", new JsonObject().put("k", fusion.qdrantK())
              .put("weights", new JsonArray().add(fusion.denseWeight()).add(fusion.keywordWeight()))))
          .put("limit", 40));

      Map<String, Float> expected = fusion.scores(dense, keyword);
      assertThat(keyword).isNotEmpty();
      assertThat(fused).hasSize(expected.size());
      for (Object point : fused) {
        JsonObject p = (JsonObject) point;
        assertThat(p.getFloat("score")).as(p.getString("id")).isCloseTo(expected.get(p.getString("id")), within(1e-6f));
      }
    }
  }

  @Test
  @DisplayName("real Qdrant: BM25 over the nested dense prefetch is the BM25 list of the dense candidates, scores and all,"
      + " and the store's hybrid hits are all dense candidates")
  void keywordsRankTheDenseCandidates() {
    for (int i = 0; i < 10; i++) {
      JsonArray vector = new JsonArray();
      for (float v : questionVectors.get(i)) {
        vector.add(v);
      }
      JsonObject document = new JsonObject().put("text", questions.get(i).query()).put("model", "qdrant/bm25")
          .put("options", KeywordAnalysis.qdrantOptions(avgLen()));
      JsonObject denseQuery = new JsonObject().put("query", vector).put("limit", 40);
      Set<String> candidates = Set.copyOf(restIds(query(denseQuery)));
      Map<String, Float> expected = new java.util.HashMap<>();
      for (Object point : query(new JsonObject().put("query", new JsonObject().put("nearest", document))
          .put("using", QdrantVectorStore.SPARSE).put("limit", 1000))) {
        JsonObject p = (JsonObject) point;
        if (candidates.contains(p.getString("id"))) {
          expected.put(p.getString("id"), p.getFloat("score"));
        }
      }
      JsonArray nested = query(new JsonObject().put("prefetch", new JsonArray().add(denseQuery))
          .put("query", new JsonObject().put("nearest", document)).put("using", QdrantVectorStore.SPARSE).put("limit", 40));

      assertThat(expected).as(questions.get(i).query()).isNotEmpty();
      assertThat(restIds(nested)).containsExactlyInAnyOrderElementsOf(expected.keySet());
      for (Object point : nested) {
        JsonObject p = (JsonObject) point;
        assertThat(p.getFloat("score")).isCloseTo(expected.get(p.getString("id")), within(1e-4f));
      }
      List<ScoredPoint> hits = await(store.search(hybrid(i, 10, Fusion.DEFAULT)), 20);
      Set<String> storeCandidates = Set.copyOf(await(store.search(new SearchRequest(COLLECTION, questionVectors.get(i),
          Fusion.DEFAULT.candidatesFor(10), 0f, Map.of(), Deadline.in(Duration.ofSeconds(20)), questions.get(i).query(),
          SearchMode.DENSE)), 20).stream().map(ScoredPoint::id).toList());
      assertThat(hits).hasSize(10).extracting(ScoredPoint::id).allMatch(storeCandidates::contains);
    }
  }

  @Test
  @DisplayName("real Qdrant: keyword weight 0 leaves the dense order; dense weight 0 puts a keyword match first")
  void weightsHonouredThroughTheStore() {
    for (int i = 0; i < 10; i++) {
      List<String> dense = await(store.search(new SearchRequest(COLLECTION, questionVectors.get(i), 10, 0f, Map.of(),
          Deadline.in(Duration.ofSeconds(20)), questions.get(i).query(), SearchMode.DENSE)), 20)
          .stream().map(ScoredPoint::id).toList();
      List<ScoredPoint> denseOnly = await(store.search(hybrid(i, 10, new Fusion(60, 1.0, 0.0, 40))), 20);
      List<ScoredPoint> keywordOnly = await(store.search(hybrid(i, 10, new Fusion(60, 0.0, 1.0, 40))), 20);

      assertThat(denseOnly).extracting(ScoredPoint::id).isEqualTo(dense);
      List<String> queryTokens = KeywordAnalysis.tokens(questions.get(i).query());
      assertThat(KeywordAnalysis.tokens(KeywordText.of(keywordOnly.get(0).payload())))
          .as(questions.get(i).query()).containsAnyElementsOf(queryTokens);
    }
  }

  @Test
  @DisplayName("real Qdrant: the collection keeps the average length of all the book's chunks, and each point's BM25"
      + " vector is our analysis with it")
  void bm25OptionsAccepted() {
    double avgLen = avgLen();
    JsonObject scrolled = qdrant.rest("POST", "/collections/" + COLLECTION + "/points/scroll",
        new JsonObject().put("limit", 30).put("with_payload", true).put("with_vector", List.of(QdrantVectorStore.SPARSE)));
    JsonArray points = scrolled.getJsonObject("result").getJsonArray("points");

    // measured on every chunk of the book, not on the first pages read
    double[] all = SampleBook.pages().stream().flatMap(page -> new Chunker().chunk(page).stream())
        .mapToDouble(chunk -> KeywordAnalysis.tokens(KeywordText.of(chunk.payload())).size()).toArray();
    assertThat(avgLen).isCloseTo(java.util.Arrays.stream(all).average().orElseThrow(), within(1e-9));
    assertThat(points).hasSize(30);
    for (Object point : points) {
      JsonObject p = (JsonObject) point;
      JsonObject sparse = p.getJsonObject("vector").getJsonObject(QdrantVectorStore.SPARSE);
      Map<Integer, Float> stored = new LinkedHashMap<>();
      for (int t = 0; t < sparse.getJsonArray("indices").size(); t++) {
        stored.put(sparse.getJsonArray("indices").getLong(t).intValue(), sparse.getJsonArray("values").getFloat(t));
      }
      List<String> tokens = KeywordAnalysis.tokens(KeywordText.of(p.getJsonObject("payload")));
      Map<Integer, Float> expected = new LinkedHashMap<>();
      Map<String, Integer> counts = new LinkedHashMap<>();
      tokens.forEach(token -> counts.merge(token, 1, Integer::sum));
      double norm = KeywordAnalysis.K1 * (1 - KeywordAnalysis.B + KeywordAnalysis.B * tokens.size() / avgLen);
      counts.forEach((token, n) -> expected.put(QdrantTestBm25.termId(token),
          (float) (n * (KeywordAnalysis.K1 + 1) / (n + norm))));

      assertThat(stored.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
      expected.forEach((term, weight) -> assertThat(stored.get(term)).isCloseTo(weight, within(1e-4f)));
    }
  }

  private static double avgLen() {
    JsonObject info = qdrant.rest("GET", "/collections/" + COLLECTION, null).getJsonObject("result");
    return info.getJsonObject("config").getJsonObject("metadata").getDouble(QdrantVectorStore.AVG_LEN_KEY);
  }

  private static JsonArray query(JsonObject body) {
    JsonObject answer = qdrant.rest("POST", "/collections/" + COLLECTION + "/points/query", body);
    assertThat(answer.getInteger("http_status")).as(answer.encode()).isEqualTo(200);
    return answer.getJsonObject("result").getJsonArray("points");
  }

  private static List<String> restIds(JsonArray points) {
    return points.stream().map(p -> ((JsonObject) p).getString("id")).toList();
  }

  private static SearchRequest hybrid(int question, int limit, Fusion fusion) {
    return new SearchRequest(COLLECTION, questionVectors.get(question), limit, 0f, Map.of(),
        Deadline.in(Duration.ofSeconds(30)), questions.get(question).query(), SearchMode.HYBRID, fusion);
  }

  private static List<List<String>> ids(List<List<ScoredPoint>> results) {
    return results.stream().map(hits -> hits.stream().map(ScoredPoint::id).toList()).toList();
  }

  private static EvalReport evaluate(String mode) {
    Retriever retriever = new InProcessRetriever(service, config.retrieval().maxBatchQueries(), 120_000);
    return await(new Evaluator(retriever, new Evaluator.Options(10, COLLECTION, mode)).run(questions), 300);
  }

  private static <T> T await(Future<T> future, int seconds) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
