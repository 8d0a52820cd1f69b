package dev.ragretrieval.retrieval;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbedResponse;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.rerank.RerankHit;
import dev.ragretrieval.rerank.Reranker;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchMode;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A request flows one way: validate -> embed -> search -> map. Each step returns a Future; the
 * HTTP layer composes them and writes the answer. Deadlines are absolute epoch millis and go down
 * to the embedding call and the vector search unchanged.
 *
 * <p>Before the search, {@link #plan} settles the search mode: the one asked for, else the
 * configured default (hybrid), falling back to dense when the collection has no BM25 index. With
 * a reranker configured, the search returns {@code candidates} hits and the reranker orders them
 * into the top_k; the score threshold has already applied to the cosine by then.
 */
public final class RetrievalService {

  private final EmbeddingClient embeddings;
  private final VectorStore store;
  private final String embeddingModel;
  private final RequestParser parser;
  private final PayloadMapper mapper;
  private final ContextAssembler assembler = new ContextAssembler();
  private final boolean hybridByDefault;
  private final AppConfig.Rerank rerankConfig;
  private final Fusion fusion;
  private final Reranker reranker; // null = results stay in search order
  private final ResultCache results;

  /** Without a reranker. */
  public RetrievalService(EmbeddingClient embeddings, VectorStore store, AppConfig config) {
    this(embeddings, store, config, Optional.empty());
  }

  /** Its result cache's look-ups are not counted anywhere scraped. */
  public RetrievalService(EmbeddingClient embeddings, VectorStore store, AppConfig config, Optional<Reranker> reranker) {
    this(embeddings, store, config, reranker, RagMetrics.detached());
  }

  public RetrievalService(EmbeddingClient embeddings, VectorStore store, AppConfig config, Optional<Reranker> reranker,
      RagMetrics metrics) {
    this.results = ResultCache.of(config.retrieval().resultCacheTtl(), metrics);
    this.embeddings = embeddings;
    this.store = store;
    this.embeddingModel = config.embedding().modelName();
    this.parser = new RequestParser(config.retrieval(), config.qdrant());
    this.mapper = new PayloadMapper(config.retrieval());
    this.hybridByDefault = config.retrieval().hybridByDefault();
    this.rerankConfig = config.retrieval().rerank();
    this.fusion = Fusion.of(config.retrieval().fusion());
    this.reranker = reranker.orElse(null);
  }

  /**
   * The request with its {@link SearchPlan}: dense when asked; else hybrid when the collection
   * has a BM25 index, dense with a {@code fallback} reason when not. Fails like a search would
   * (COLLECTION_NOT_FOUND, CONNECTION_ERROR, ...). A planned request is returned as it is.
   */
  public Future<RetrievalRequest> plan(RetrievalRequest request, Deadline deadline) {
    if (request.plan() != null) {
      return Future.succeededFuture(request);
    }
    String rerankModel = reranker == null ? null : reranker.model();
    int candidates = reranker == null ? request.topK() : rerankConfig.candidates(request.topK());
    SearchMode wanted = request.searchMode() != null ? request.searchMode()
        : hybridByDefault ? SearchMode.HYBRID : SearchMode.DENSE;
    if (wanted == SearchMode.DENSE) {
      return Future.succeededFuture(request.withPlan(new SearchPlan(SearchMode.DENSE, null, rerankModel, candidates)));
    }
    return guarded(() -> store.hybrid(request.collection(), deadline)).map(hybrid -> request.withPlan(hybrid
        ? new SearchPlan(SearchMode.HYBRID, null, rerankModel, candidates, fusion)
        : new SearchPlan(SearchMode.DENSE, "collection '" + request.collection() + "' has no BM25 index"
            + " (written before hybrid search); re-ingest it with --recreate to search it hybrid",
            rerankModel, candidates)));
  }

  public RequestParser parser() {
    return parser;
  }

  public Future<RetrievalRequest> validate(JsonObject body) {
    return Spans.around("validate", span -> {
      try {
        return Future.succeededFuture(parser.parse(body));
      } catch (ServiceException e) {
        return Future.failedFuture(e);
      }
    });
  }

  /** Whether the query's vector is in the query cache now: its retrieval then waits for the search alone. */
  public boolean queryVectorCached(RetrievalRequest request) {
    return embeddings.cached(request.query());
  }

  /**
   * Embeds the query, searches and maps the hits. A question asked before (its vector in the query
   * cache) has its chunks kept in the result cache; asked again within the TTL, it gets them with
   * neither embedding nor search.
   */
  public Future<RetrievalResult> retrieve(RetrievalRequest unplanned, String queryId, Deadline deadline) {
    long started = System.nanoTime();
    return plan(unplanned, deadline).compose(request -> {
      if (!results.enabled()) {
        return retrieveAnew(request, queryId, deadline, started);
      }
      ResultCache.Key key = ResultCache.key(request);
      List<RetrievedChunk> known = results.get(key);
      if (Spans.enabled()) {
        Spans.instant("result cache").setAttribute(Spans.CACHE_HIT, known != null).end();
      }
      if (known != null) {
        return Future.succeededFuture(result(queryId, request, known, started, 0, 0));
      }
      long generation = results.generation();
      // kept only for a question asked before (its vector is cached): one asked once, as most
      // are, would only fill the cache, and the heap the collector has to go through. Without a
      // query cache there is no telling, and every answer is kept.
      boolean repeated = !embeddings.cachesQueries() || embeddings.cached(request.query());
      return retrieveAnew(request, queryId, deadline, started)
          .onSuccess(result -> {
            if (repeated) {
              results.put(key, generation, result.results());
            }
          });
    });
  }

  /** This process wrote to the store: answers found before no longer count (see {@link ResultCache}). */
  public void storeChanged() {
    results.forgetAll();
  }

  private Future<RetrievalResult> retrieveAnew(RetrievalRequest request, String queryId, Deadline deadline,
      long started) {
    return timed(embed(List.of(request.query()), deadline))
        .compose(embedded -> timed(search(request, embedded.value().get(0), deadline))
            .compose(found -> rank(request, found.value(), deadline)
                .map(chunks -> result(queryId, request, chunks, started, embedded.ms(), found.ms()))));
  }

  /** Distinct values of a filterable payload key, most frequent first. */
  public Future<List<FacetCount>> facets(String collection, String key, int limit, Deadline deadline) {
    return guarded(() -> store.facet(collection, key, limit, deadline));
  }

  /** The collections in the store that requests may name (all of them unless QDRANT_COLLECTIONS is set). */
  public Future<List<CollectionInfo>> collections(Deadline deadline) {
    return guarded(() -> store.collections(deadline))
        .map(all -> all.stream().filter(info -> parser.allows(info.name())).toList());
  }

  /** The context block for a finished retrieval, within the request's character budget. */
  public AssembledContext assemble(RetrievalResult result) {
    return assembler.assemble(result.queryId(), result.query(), result.results(), result.request().maxContextChars());
  }

  /**
   * A batch: all valid queries embedded in one call and searched with one batch search per
   * collection. Returns one future per slot, in input order, each completing as its slot does;
   * an invalid slot (or a failed collection group) fails only its own futures.
   */
  public List<Future<RetrievalResult>> retrieveBatch(List<RequestParser.Slot> slots, List<String> queryIds, Deadline deadline) {
    long started = System.nanoTime();
    List<Promise<RetrievalResult>> promises = new ArrayList<>(slots.size());
    List<Integer> valid = new ArrayList<>();
    for (int i = 0; i < slots.size(); i++) {
      Promise<RetrievalResult> promise = Promise.promise();
      promises.add(promise);
      if (slots.get(i).valid()) {
        valid.add(i);
      } else {
        promise.fail(slots.get(i).error());
      }
    }
    if (valid.isEmpty()) {
      return promises.stream().map(Promise::future).toList();
    }
    List<Future<RetrievalRequest>> planning = valid.stream().map(i -> plan(slots.get(i).request(), deadline)).toList();
    Future.join(planning).onComplete(planned -> {
      // a slot whose collection cannot be asked fails alone; the others go on planned
      List<RequestParser.Slot> ready = new ArrayList<>(slots);
      List<Integer> searchable = new ArrayList<>();
      for (int v = 0; v < valid.size(); v++) {
        int i = valid.get(v);
        if (planning.get(v).failed()) {
          promises.get(i).fail(ServiceException.from(planning.get(v).cause()));
        } else {
          ready.set(i, new RequestParser.Slot(planning.get(v).result(), null));
          searchable.add(i);
        }
      }
      embedAndSearch(ready, searchable, queryIds, promises, started, deadline);
    });
    return promises.stream().map(Promise::future).toList();
  }

  private void embedAndSearch(List<RequestParser.Slot> slots, List<Integer> valid, List<String> queryIds,
      List<Promise<RetrievalResult>> promises, long started, Deadline deadline) {
    if (!valid.isEmpty()) {
      List<String> texts = valid.stream().map(i -> slots.get(i).request().query()).toList();
      timed(embed(texts, deadline)).onComplete(embedded -> {
        if (embedded.failed()) {
          valid.forEach(i -> promises.get(i).fail(embedded.cause()));
          return;
        }
        Map<String, List<Integer>> byCollection = new LinkedHashMap<>();
        for (int v = 0; v < valid.size(); v++) {
          byCollection.computeIfAbsent(slots.get(valid.get(v)).request().collection(), c -> new ArrayList<>()).add(v);
        }
        byCollection.values().forEach(group -> searchGroup(group, valid, slots, queryIds, embedded.result(),
            promises, started, deadline));
      });
    }
  }

  private void searchGroup(List<Integer> group, List<Integer> valid, List<RequestParser.Slot> slots,
      List<String> queryIds, Timed<List<float[]>> embedded, List<Promise<RetrievalResult>> promises,
      long started, Deadline deadline) {
    List<SearchRequest> searches = group.stream()
        .map(v -> searchRequest(slots.get(valid.get(v)).request(), embedded.value().get(v), deadline))
        .toList();
    Future<List<List<ScoredPoint>>> batch = Spans.around("search batch", span -> {
      if (span.isRecording()) {
        span.setAttribute(Spans.COLLECTION, searches.get(0).collection());
        span.setAttribute(Spans.DB_COLLECTION, searches.get(0).collection());
        span.setAttribute(Spans.DB_OPERATION, "search_batch");
        span.setAttribute(Spans.BATCH_SIZE, searches.size());
      }
      return guarded(() -> store.searchBatch(searches));
    });
    timed(batch).onComplete(found -> {
      for (int g = 0; g < group.size(); g++) {
        int slot = valid.get(group.get(g));
        if (found.failed()) {
          promises.get(slot).fail(ServiceException.from(found.cause()));
        } else {
          List<ScoredPoint> hits = found.result().value().size() > g ? found.result().value().get(g) : List.of();
          RetrievalRequest request = slots.get(slot).request();
          double searchMs = found.result().ms();
          rank(request, hits, deadline)
              .map(chunks -> result(queryIds.get(slot), request, chunks, started, embedded.ms(), searchMs))
              .onComplete(promises.get(slot));
        }
      }
    });
  }

  /** One vector per text, in order: the embedding verticle checks count and size of every answer. */
  private Future<List<float[]>> embed(List<String> texts, Deadline deadline) {
    return embeddings.embed(texts, InputType.SEARCH_QUERY, deadline).map(EmbedResponse::vectors);
  }

  private Future<List<ScoredPoint>> search(RetrievalRequest request, float[] vector, Deadline deadline) {
    return Spans.around("search", span -> {
      describe(span, request);
      return guarded(() -> store.search(searchRequest(request, vector, deadline)))
          .onSuccess(hits -> span.setAttribute(Spans.RESULT_COUNT, hits.size()));
    });
  }

  /** The rag.* attributes of a search, and the database ones. */
  private static void describe(Span span, RetrievalRequest request) {
    if (!span.isRecording()) {
      return;
    }
    span.setAttribute(Spans.COLLECTION, request.collection());
    span.setAttribute(Spans.DB_COLLECTION, request.collection());
    span.setAttribute(Spans.DB_OPERATION, "search");
    span.setAttribute(Spans.TOP_K, request.topK());
    span.setAttribute(Spans.SEARCH_MODE, request.plan().mode().name().toLowerCase(java.util.Locale.ROOT));
    span.setAttribute(Spans.CANDIDATES, request.plan().candidates());
  }

  /** A store call that throws instead of failing its future must still fail the request, not hang it. */
  private static <T> Future<T> guarded(Supplier<Future<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return Future.failedFuture(ServiceException.from(e));
    }
  }

  /** A planned request's search: its mode, and as many hits as the reranker (if any) should see. */
  private static SearchRequest searchRequest(RetrievalRequest request, float[] vector, Deadline deadline) {
    SearchPlan plan = request.plan();
    return new SearchRequest(request.collection(), vector, plan.candidates(), (float) request.scoreThreshold(),
        request.filter(), deadline, request.query(), plan.mode(), plan.fusion());
  }

  /** The hits as results: the top_k in search order, or the candidates reranked into the top_k. */
  private Future<List<RetrievedChunk>> rank(RetrievalRequest request, List<ScoredPoint> hits, Deadline deadline) {
    if (!request.plan().reranked() || reranker == null) {
      return Future.succeededFuture(mapper.map(hits.size() > request.topK() ? hits.subList(0, request.topK()) : hits));
    }
    List<RetrievedChunk> candidates = mapper.map(hits);
    List<String> texts = candidates.stream().map(c -> c.text() == null ? "" : c.text()).toList();
    Future<List<RerankHit>> reranked = Spans.around("rerank", span -> {
      span.setAttribute(Spans.MODEL, reranker.model());
      span.setAttribute(Spans.CANDIDATES, texts.size());
      span.setAttribute(Spans.TOP_K, request.topK());
      return guarded(() -> reranker.rerank(request.query(), texts, request.topK(), deadline));
    });
    return reranked.map(order -> {
      List<RetrievedChunk> out = new ArrayList<>(order.size());
      for (RerankHit hit : order) {
        if (out.size() == request.topK()) {
          break;
        }
        out.add(candidates.get(hit.index()).reranked(out.size() + 1, hit.relevanceScore()));
      }
      return out;
    });
  }

  private RetrievalResult result(String queryId, RetrievalRequest request, List<RetrievedChunk> chunks,
      long started, double embedMs, double searchMs) {
    return new RetrievalResult(queryId, request.query(), request.collection(), embeddingModel,
        RetrievalResult.Status.of(chunks.size(), request.topK()), chunks, request,
        (System.nanoTime() - started) / 1e6, embedMs, searchMs);
  }

  private record Timed<T>(T value, double ms) {}

  private static <T> Future<Timed<T>> timed(Future<T> step) {
    long started = System.nanoTime();
    return step.map(value -> new Timed<>(value, (System.nanoTime() - started) / 1e6));
  }
}
