package dev.ragretrieval.retrieval;

import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.FacetCount;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** Every JSON shape the API answers with (docs/API.md sections 4 to 7), in one place. */
public final class ResultJson {

  private ResultJson() {}

  public static JsonObject result(RetrievalResult result) {
    return new JsonObject()
        .put("query_id", result.queryId())
        .put("query", result.query())
        .put("collection", result.collection())
        .put("embedding_model", result.embeddingModel())
        .put("status", result.status().wireName())
        .put("count", result.count())
        .put("results", chunks(result.results()))
        .put("search_params", searchParams(result.request()))
        .put("execution_time_ms", ms(result.executionTimeMs()))
        .put("timings_ms", timings(result));
  }

  public static JsonObject chunk(RetrievedChunk chunk) {
    JsonObject json = new JsonObject()
        .put("rank", chunk.rank())
        .put("id", chunk.id())
        .put("chunk_id", chunk.chunkId())
        .put("text", chunk.text())
        .put("score", chunk.score())
        .put("source_url", chunk.sourceUrl())
        .put("page_title", chunk.pageTitle())
        .put("chapter", chunk.chapter())
        .put("section", chunk.section())
        .put("chunk_index", chunk.chunkIndex())
        .put("metadata", chunk.metadata() == null ? new JsonObject() : chunk.metadata());
    if (chunk.truncated()) {
      json.put("truncated", true);
    }
    return json;
  }

  public static JsonArray chunks(List<RetrievedChunk> chunks) {
    JsonArray array = new JsonArray();
    chunks.forEach(c -> array.add(chunk(c)));
    return array;
  }

  public static JsonObject searchParams(RetrievalRequest request) {
    return new JsonObject()
        .put("top_k", request.topK())
        .put("score_threshold", request.scoreThreshold())
        .put("filter", request.filterEcho() == null ? new JsonObject() : request.filterEcho());
  }

  public static JsonObject context(AssembledContext context) {
    JsonArray sources = new JsonArray();
    context.sources().forEach(sources::add);
    return new JsonObject()
        .put("query_id", context.queryId())
        .put("query", context.query())
        .put("formatted_text", context.formattedText())
        .put("chunk_count", context.chunkCount())
        .put("total_chars", context.totalChars())
        .put("sources", sources)
        .put("results", chunks(context.results()));
  }

  /** The first stream event: what is being searched, before any result exists. */
  public static JsonObject meta(String queryId, RetrievalRequest request) {
    return new JsonObject()
        .put("query_id", queryId)
        .put("query", request.query())
        .put("collection", request.collection())
        .put("search_params", searchParams(request));
  }

  /** The last stream event. */
  public static JsonObject done(RetrievalResult result) {
    return new JsonObject()
        .put("query_id", result.queryId())
        .put("count", result.count())
        .put("status", result.status().wireName())
        .put("execution_time_ms", ms(result.executionTimeMs()))
        .put("timings_ms", timings(result));
  }

  /** The error body: {"error": {...}}. */
  public static JsonObject error(ServiceException error, String queryId) {
    return new JsonObject().put("error", errorObject(error, queryId));
  }

  /** The inner error object, also the data of a stream's error event and of a failed batch slot's. */
  public static JsonObject errorObject(ServiceException error, String queryId) {
    return new JsonObject()
        .put("code", error.code().name())
        .put("message", error.getMessage())
        .put("details", error.details())
        .put("query_id", queryId);
  }

  /** One NDJSON line's object: {"event": name, "data": {...}}. */
  public static JsonObject event(String name, JsonObject data) {
    return new JsonObject().put("event", name).put("data", data);
  }

  /** A batch NDJSON line: {"event": name, "index": i, "data": {...}}. */
  public static JsonObject event(String name, int index, JsonObject data) {
    return new JsonObject().put("event", name).put("index", index).put("data", data);
  }

  public static JsonObject facets(String key, String collection, List<FacetCount> counts) {
    JsonArray values = new JsonArray();
    counts.forEach(c -> values.add(new JsonObject().put("value", c.value()).put("count", c.count())));
    return new JsonObject().put("key", key).put("collection", collection).put("values", values);
  }

  /** GET /v1/collections: name, point count, vector size and whether hybrid search can run on it. */
  public static JsonObject collections(List<CollectionInfo> infos) {
    JsonArray list = new JsonArray();
    infos.forEach(info -> list.add(new JsonObject().put("name", info.name()).put("points", info.pointsCount())
        .put("vector_size", info.vectorSize()).put("hybrid", info.hybrid())));
    return new JsonObject().put("collections", list);
  }

  /** Milliseconds with one decimal: finer digits are noise. */
  public static double ms(double millis) {
    return Math.round(millis * 10) / 10.0;
  }

  private static JsonObject timings(RetrievalResult result) {
    return new JsonObject().put("embed", ms(result.embedMs())).put("search", ms(result.searchMs()));
  }
}
