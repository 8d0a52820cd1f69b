package dev.ragretrieval.retrieval;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbedResponse;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.search.VectorStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A request flows one way: validate -> embed -> search -> map. Each step returns a Future; the
 * HTTP layer composes them and writes the answer. Deadlines are absolute epoch millis and go down
 * to the embedding call and the vector search unchanged.
 */
public final class RetrievalService {

  private final EmbeddingClient embeddings;
  private final VectorStore store;
  private final String embeddingModel;
  private final RequestParser parser;
  private final PayloadMapper mapper;
  private final ContextAssembler assembler = new ContextAssembler();

  public RetrievalService(EmbeddingClient embeddings, VectorStore store, AppConfig config) {
    this.embeddings = embeddings;
    this.store = store;
    this.embeddingModel = config.embedding().modelName();
    this.parser = new RequestParser(config.retrieval(), config.qdrant());
    this.mapper = new PayloadMapper(config.retrieval());
  }

  public RequestParser parser() {
    return parser;
  }

  public Future<RetrievalRequest> validate(JsonObject body) {
    try {
      return Future.succeededFuture(parser.parse(body));
    } catch (ServiceException e) {
      return Future.failedFuture(e);
    }
  }

  /** Embeds the query, searches and maps the hits. */
  public Future<RetrievalResult> retrieve(RetrievalRequest request, String queryId, Deadline deadline) {
    long started = System.nanoTime();
    return timed(embed(List.of(request.query()), deadline))
        .compose(embedded -> timed(search(request, embedded.value().get(0), deadline))
            .map(found -> result(queryId, request, found.value(), started, embedded.ms(), found.ms())));
  }

  /** Distinct values of a filterable payload key, most frequent first. */
  public Future<List<FacetCount>> facets(String collection, String key, int limit, Deadline deadline) {
    return guarded(() -> store.facet(collection, key, limit, deadline));
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
    return promises.stream().map(Promise::future).toList();
  }

  private void searchGroup(List<Integer> group, List<Integer> valid, List<RequestParser.Slot> slots,
      List<String> queryIds, Timed<List<float[]>> embedded, List<Promise<RetrievalResult>> promises,
      long started, Deadline deadline) {
    List<SearchRequest> searches = group.stream()
        .map(v -> searchRequest(slots.get(valid.get(v)).request(), embedded.value().get(v), deadline))
        .toList();
    timed(guarded(() -> store.searchBatch(searches))).onComplete(found -> {
      for (int g = 0; g < group.size(); g++) {
        int slot = valid.get(group.get(g));
        if (found.failed()) {
          promises.get(slot).fail(ServiceException.from(found.cause()));
        } else {
          List<ScoredPoint> hits = found.result().value().size() > g ? found.result().value().get(g) : List.of();
          promises.get(slot).complete(result(queryIds.get(slot), slots.get(slot).request(), hits, started,
              embedded.ms(), found.result().ms()));
        }
      }
    });
  }

  /** One vector per text, in order: the embedding verticle checks count and size of every answer. */
  private Future<List<float[]>> embed(List<String> texts, Deadline deadline) {
    return embeddings.embed(texts, InputType.SEARCH_QUERY, deadline).map(EmbedResponse::vectors);
  }

  private Future<List<ScoredPoint>> search(RetrievalRequest request, float[] vector, Deadline deadline) {
    return guarded(() -> store.search(searchRequest(request, vector, deadline)));
  }

  /** A store call that throws instead of failing its future must still fail the request, not hang it. */
  private static <T> Future<T> guarded(Supplier<Future<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return Future.failedFuture(ServiceException.from(e));
    }
  }

  private static SearchRequest searchRequest(RetrievalRequest request, float[] vector, Deadline deadline) {
    return new SearchRequest(request.collection(), vector, request.topK(), (float) request.scoreThreshold(),
        request.filter(), deadline);
  }

  private RetrievalResult result(String queryId, RetrievalRequest request, List<ScoredPoint> hits,
      long started, double embedMs, double searchMs) {
    List<ScoredPoint> top = hits.size() > request.topK() ? hits.subList(0, request.topK()) : hits;
    List<RetrievedChunk> chunks = mapper.map(top);
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
