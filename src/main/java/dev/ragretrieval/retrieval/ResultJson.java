package dev.ragretrieval.retrieval;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.FacetCount;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.jackson.JacksonCodec;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * Every JSON shape the API answers with (docs/API.md sections 4 to 7), in one place. The shapes of the
 * hot path (a result, its chunks, the stream events) are written once, straight into the output
 * with Jackson's generator: no tree of maps per answer. Their {@link JsonObject} forms (the CLI,
 * the batch answer) are read back from the same bytes, so the two can never disagree.
 */
public final class ResultJson {

  private static final JsonFactory JSON = new JsonFactory();
  /** Chunk texts escaped as the generator escapes (quotes, backslashes, control characters), into UTF-8. */
  private static final EscapedTexts TEXTS = new EscapedTexts(EscapedTexts.MAX_BYTES);
  // a chunk's field names, quoted and encoded once: each answer writes them for every chunk
  private static final SerializableString RANK = new SerializedString("rank");
  private static final SerializableString ID = new SerializedString("id");
  private static final SerializableString CHUNK_ID = new SerializedString("chunk_id");
  private static final SerializableString TEXT = new SerializedString("text");
  private static final SerializableString SCORE = new SerializedString("score");
  private static final SerializableString SOURCE_URL = new SerializedString("source_url");
  private static final SerializableString PAGE_TITLE = new SerializedString("page_title");
  private static final SerializableString CHAPTER = new SerializedString("chapter");
  private static final SerializableString SECTION = new SerializedString("section");
  private static final SerializableString CHUNK_INDEX = new SerializedString("chunk_index");
  private static final SerializableString METADATA = new SerializedString("metadata");

  private ResultJson() {}

  /** Something written as one JSON value. */
  @FunctionalInterface
  public interface Shape {
    void write(JsonGenerator json) throws IOException;
  }

  /** A generator over a buffer; {@link #close} flushes it. Root values follow each other with no separator. */
  public static final class Output implements AutoCloseable {
    private final Buffer buffer;
    private final JsonGenerator json;

    public Output(int initialBytes) {
      this.buffer = Buffer.buffer(initialBytes);
      try {
        this.json = JSON.createGenerator(new OutputStream() {
          @Override
          public void write(int b) {
            buffer.appendByte((byte) b);
          }

          @Override
          public void write(byte[] bytes, int offset, int length) {
            buffer.appendBytes(bytes, offset, length);
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      json.setRootValueSeparator(null);
    }

    public JsonGenerator json() {
      return json;
    }

    /** Writes text as it is (stream framing between JSON values). */
    public Output raw(String text) {
      try {
        json.writeRaw(text);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    public Output write(Shape shape) {
      try {
        shape.write(json);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    /** Everything written so far. */
    public Buffer buffer() {
      close();
      return buffer;
    }

    @Override
    public void close() {
      try {
        json.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** One shape's JSON bytes. */
  public static Buffer encode(Shape shape) {
    return new Output(2048).write(shape).buffer();
  }

  /**
   * A result's JSON bytes, written once into a buffer sized for it up front: the chunks' texts
   * are most of an answer, and a buffer grown by doubling would copy them again at each step.
   */
  public static Buffer encode(RetrievalResult result) {
    int estimate = 1024;
    for (RetrievedChunk chunk : result.results()) {
      // the text goes out twice: as "text" and in "metadata" (the whole payload)
      estimate += chunk.text() == null ? 768 : 2 * chunk.text().length() + 768;
    }
    return new Output(estimate).write(json -> result(json, result)).buffer();
  }

  public static JsonObject result(RetrievalResult result) {
    return new JsonObject(encode(json -> result(json, result)));
  }

  public static void result(JsonGenerator json, RetrievalResult result) throws IOException {
    json.writeStartObject();
    json.writeStringField("query_id", result.queryId());
    json.writeStringField("query", result.query());
    json.writeStringField("collection", result.collection());
    json.writeStringField("embedding_model", result.embeddingModel());
    json.writeStringField("status", result.status().wireName());
    json.writeNumberField("count", result.count());
    json.writeFieldName("results");
    chunks(json, result.results());
    json.writeFieldName("search_params");
    searchParams(json, result.request());
    json.writeNumberField("execution_time_ms", ms(result.executionTimeMs()));
    json.writeFieldName("timings_ms");
    timings(json, result);
    json.writeEndObject();
  }

  public static JsonObject chunk(RetrievedChunk chunk) {
    return new JsonObject(encode(json -> chunk(json, chunk)));
  }

  public static void chunk(JsonGenerator json, RetrievedChunk chunk) throws IOException {
    json.writeStartObject();
    json.writeFieldName(RANK);
    json.writeNumber(chunk.rank());
    string(json, ID, chunk.id());
    string(json, CHUNK_ID, chunk.chunkId());
    // the text is most of a chunk and appears twice (here and in metadata): escaped once
    byte[] text = chunk.text() == null ? null : TEXTS.of(chunk.id(), chunk.text());
    json.writeFieldName(TEXT);
    if (text == null) {
      json.writeNull();
    } else {
      json.writeRawUTF8String(text, 0, text.length);
    }
    json.writeFieldName(SCORE);
    json.writeNumber(chunk.score());
    string(json, SOURCE_URL, chunk.sourceUrl());
    string(json, PAGE_TITLE, chunk.pageTitle());
    string(json, CHAPTER, chunk.chapter());
    string(json, SECTION, chunk.section());
    json.writeFieldName(CHUNK_INDEX);
    if (chunk.chunkIndex() == null) {
      json.writeNull();
    } else {
      json.writeNumber(chunk.chunkIndex().intValue());
    }
    // the whole payload, as it came from the store, written as it stands: no copy
    json.writeFieldName(METADATA);
    metadata(json, chunk.metadata() == null ? EMPTY : chunk.metadata(), chunk.text(), text);
    if (chunk.truncated()) {
      json.writeBooleanField("truncated", true);
    }
    if (chunk.relevanceScore() != null) {
      json.writeNumberField("relevance_score", chunk.relevanceScore());
    }
    json.writeEndObject();
  }

  /** A string field (null as JSON null), its name encoded once for every chunk. */
  private static void string(JsonGenerator json, SerializableString name, String value) throws IOException {
    json.writeFieldName(name);
    json.writeString(value);
  }

  /** The payload as it stands; the field holding the chunk's own text reuses its escaped bytes. */
  private static void metadata(JsonGenerator json, JsonObject metadata, String text, byte[] escapedText)
      throws IOException {
    json.writeStartObject();
    for (Map.Entry<String, Object> field : metadata.getMap().entrySet()) {
      json.writeFieldName(field.getKey());
      Object value = field.getValue();
      if (escapedText != null && value == text) {
        json.writeRawUTF8String(escapedText, 0, escapedText.length);
      } else {
        JacksonCodec.encodeJson(value, json);
      }
    }
    json.writeEndObject();
  }

  public static JsonArray chunks(List<RetrievedChunk> chunks) {
    return new JsonArray(encode(json -> chunks(json, chunks)));
  }

  public static void chunks(JsonGenerator json, List<RetrievedChunk> chunks) throws IOException {
    if (chunks instanceof EncodedChunks encoded) {
      // a cached answer's chunks: their array was written once, for every answer that reuses them
      json.writeRawValue(encoded.json());
      return;
    }
    json.writeStartArray();
    for (RetrievedChunk chunk : chunks) {
      chunk(json, chunk);
    }
    json.writeEndArray();
  }

  /**
   * The request's parameters and, once planned, how the search ran: {@code search_mode} (the mode
   * used), {@code ranking} ("cosine", "rrf" or "rerank"), {@code fallback} (only when hybrid was
   * wanted but the collection has no BM25 index), {@code fusion} (a hybrid search's: method "rrf",
   * k, dense_weight, keyword_weight, and the candidates each list gave), and {@code rerank_model} /
   * {@code rerank_candidates} when a reranker ordered the results.
   */
  public static JsonObject searchParams(RetrievalRequest request) {
    return new JsonObject(encode(json -> searchParams(json, request)));
  }

  public static void searchParams(JsonGenerator json, RetrievalRequest request) throws IOException {
    json.writeStartObject();
    json.writeNumberField("top_k", request.topK());
    json.writeNumberField("score_threshold", request.scoreThreshold());
    json.writeFieldName("filter");
    JacksonCodec.encodeJson(request.filterEcho() == null ? EMPTY : request.filterEcho(), json);
    SearchPlan plan = request.plan();
    if (plan == null) {
      if (request.searchMode() != null) {
        json.writeStringField("search_mode", request.searchMode().wireName());
      }
    } else {
      json.writeStringField("search_mode", plan.mode().wireName());
      json.writeStringField("ranking", plan.ranking());
      if (plan.fallback() != null) {
        json.writeStringField("fallback", plan.fallback());
      }
      if (plan.fusion() != null) {
        Fusion fusion = plan.fusion();
        json.writeObjectFieldStart("fusion");
        json.writeStringField("method", "rrf");
        json.writeNumberField("k", fusion.rrfK());
        json.writeNumberField("dense_weight", fusion.denseWeight());
        json.writeNumberField("keyword_weight", fusion.keywordWeight());
        json.writeNumberField("candidates", fusion.candidatesFor(plan.candidates()));
        json.writeEndObject();
      }
      if (plan.reranked()) {
        json.writeStringField("rerank_model", plan.rerankModel());
        json.writeNumberField("rerank_candidates", plan.candidates());
      }
    }
    json.writeEndObject();
  }

  public static JsonObject context(AssembledContext context) {
    return new JsonObject(encode(json -> context(json, context)));
  }

  public static void context(JsonGenerator json, AssembledContext context) throws IOException {
    json.writeStartObject();
    json.writeStringField("query_id", context.queryId());
    json.writeStringField("query", context.query());
    json.writeStringField("formatted_text", context.formattedText());
    json.writeNumberField("chunk_count", context.chunkCount());
    json.writeNumberField("total_chars", context.totalChars());
    json.writeArrayFieldStart("sources");
    for (String source : context.sources()) {
      json.writeString(source);
    }
    json.writeEndArray();
    json.writeFieldName("results");
    chunks(json, context.results());
    json.writeEndObject();
  }

  /** The first stream event: what is being searched, before any result exists. */
  public static JsonObject meta(String queryId, RetrievalRequest request) {
    return new JsonObject(encode(json -> meta(json, queryId, request)));
  }

  public static void meta(JsonGenerator json, String queryId, RetrievalRequest request) throws IOException {
    json.writeStartObject();
    json.writeStringField("query_id", queryId);
    json.writeStringField("query", request.query());
    json.writeStringField("collection", request.collection());
    json.writeFieldName("search_params");
    searchParams(json, request);
    json.writeEndObject();
  }

  /** The last stream event. */
  public static JsonObject done(RetrievalResult result) {
    return new JsonObject(encode(json -> done(json, result)));
  }

  public static void done(JsonGenerator json, RetrievalResult result) throws IOException {
    json.writeStartObject();
    json.writeStringField("query_id", result.queryId());
    json.writeNumberField("count", result.count());
    json.writeStringField("status", result.status().wireName());
    json.writeNumberField("execution_time_ms", ms(result.executionTimeMs()));
    json.writeFieldName("timings_ms");
    timings(json, result);
    json.writeEndObject();
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

  private static void timings(JsonGenerator json, RetrievalResult result) throws IOException {
    json.writeStartObject();
    json.writeNumberField("embed", ms(result.embedMs()));
    json.writeNumberField("search", ms(result.searchMs()));
    json.writeEndObject();
  }

  private static final JsonObject EMPTY = new JsonObject();
}
