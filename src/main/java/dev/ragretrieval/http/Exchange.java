package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.observability.RequestLog;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request's answer, written exactly once: a JSON body, an HTTP error, or a stream of events
 * that ends with {@code done} or {@code error}. Whatever arrives after the answer is finished (an
 * upstream reply after the deadline fired, a write after the client left) is dropped.
 */
final class Exchange {

  private static final String KEY = "rag.exchange";
  private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);

  private final RoutingContext ctx;
  private final String route;
  private final RagMetrics metrics;
  private final long startedNanos = System.nanoTime();
  /** The request's server span (records nothing when tracing is off). */
  private final Span span;
  private String queryId;
  private String requestId;
  private String queryText;
  private StreamFormat stream;
  private boolean finished;
  private ErrorCode code;
  private RetrievalResult result;
  private Events events;

  private Exchange(RoutingContext ctx, String route, RagMetrics metrics) {
    this.ctx = ctx;
    this.route = route;
    this.metrics = metrics;
    this.span = TraceHandler.span(ctx);
  }

  /** The request's exchange, created on first use; its route label ({@link ApiRoutes#label}) marks error metrics. */
  static Exchange of(RoutingContext ctx, RagMetrics metrics) {
    Exchange exchange = ctx.get(KEY);
    if (exchange == null) {
      exchange = new Exchange(ctx, ApiRoutes.label(ctx), metrics);
      ctx.put(KEY, exchange);
    }
    return exchange;
  }

  String queryId() {
    return queryId;
  }

  Exchange queryId(String queryId) {
    this.queryId = queryId;
    TraceHandler.queryId(span, queryId);
    return this;
  }

  Exchange requestId(String requestId) {
    this.requestId = requestId;
    return this;
  }

  Exchange query(String text) {
    this.queryText = text;
    TraceHandler.query(span, text);
    return this;
  }

  /** Remembered for the request log line. */
  RetrievalResult record(RetrievalResult result) {
    this.result = result;
    TraceHandler.answered(span, result);
    return result;
  }

  /** The request log line, once the response has ended or the client has gone. */
  /**
   * Writes the request's log line with the request's span current: the line is written when the
   * response has ended, after Vert.x closed the span's scope, and must still carry its trace_id.
   */
  void log() {
    if (!span.getSpanContext().isValid()) {
      RequestLog.log(logEntry());
      return;
    }
    try (Scope scope = Context.current().with(span).makeCurrent()) {
      RequestLog.log(logEntry());
    }
  }

  RequestLog.Entry logEntry() {
    return new RequestLog.Entry(queryId, requestId, ctx.request().method().name(), route, ctx.response().getStatusCode(),
        code, (System.nanoTime() - startedNanos) / 1e6,
        result == null ? null : result.embedMs(),
        result == null ? null : result.searchMs(),
        result == null ? null : result.count(),
        streaming(), queryText);
  }

  boolean finished() {
    return finished || ctx.response().ended() || ctx.response().closed();
  }

  boolean streaming() {
    return stream != null;
  }

  void json(JsonObject body) {
    json(200, body);
  }

  void json(int status, JsonObject body) {
    json(status, body.toBuffer());
  }

  /** A body already encoded (by {@link ResultJson#encode}). */
  void json(Buffer body) {
    json(200, body);
  }

  private void json(int status, Buffer body) {
    if (finished()) {
      return;
    }
    finished = true;
    Spans.run("write response", () -> ctx.response()
        .setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(body));
  }

  /** Before the first event an HTTP error; after it an {@code error} event that ends the stream. */
  void fail(Throwable failure) {
    ServiceException error = ServiceException.from(failure);
    fail(error, error.code().httpStatus());
  }

  /** For the few HTTP statuses outside the contract's table (405, 403) that still carry a code. */
  void fail(ServiceException error, int status) {
    if (finished()) {
      return;
    }
    code = error.code();
    TraceHandler.failed(span, error);
    if (code == ErrorCode.INTERNAL) {
      // the one place a bug of ours is logged, with its stack trace; the client sees "internal error"
      LOG.error("request {} failed with an internal error", requestId, error.getCause() == null ? error : error.getCause());
    }
    metrics.error(route, error.code());
    if (streaming()) {
      if (events != null) {
        events.send(); // events held back (a cached question's meta) keep their place before the error
      }
      event("error", ResultJson.errorObject(error, queryId));
      end();
      return;
    }
    HttpServerResponse response = ctx.response();
    if (response.headWritten()) {
      finished = true;
      response.reset();
      return;
    }
    Integer retryAfter = retryAfter(error);
    if (retryAfter != null) {
      response.putHeader(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfter));
    }
    if (error.code() == ErrorCode.UNAUTHORIZED) {
      response.putHeader("WWW-Authenticate", "Bearer realm=\"rag-retrieval\"");
    }
    json(status, ResultJson.error(error, queryId));
  }

  /**
   * Makes this answer a stream. The headers go out with the first write: chunked when more writes
   * follow, or with a Content-Length when the first write also ends the stream (every event was
   * ready at once), which costs what a JSON answer costs.
   */
  void startStream(StreamFormat format) {
    if (finished() || streaming()) {
      return;
    }
    stream = format;
    // the gauge must come down exactly once, whether the stream ends or the client leaves, and
    // on the same instance it went up on
    AtomicInteger openStreams = metrics.openStreams();
    openStreams.incrementAndGet();
    ctx.addEndHandler(done -> openStreams.decrementAndGet());
    ctx.response()
        .setStatusCode(200)
        .putHeader(HttpHeaders.CONTENT_TYPE, format.contentType())
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
        .putHeader("X-Accel-Buffering", "no");
  }

  void event(String name, JsonObject data) {
    write(name, stream == StreamFormat.NDJSON ? ResultJson.event(name, data) : data);
  }

  /** A batch event: NDJSON carries the index beside the data, SSE inside it. */
  void event(String name, int index, JsonObject data) {
    write(name, stream == StreamFormat.NDJSON
        ? ResultJson.event(name, index, data)
        : new JsonObject().put("index", index).put("data", data));
  }

  /**
   * The stream's events not sent yet. Events that are ready together are framed into one buffer
   * and sent in one write: a stream's chunks, context and done cost one write, not one each.
   * {@link Events#send} sends them; an error sends whatever is still held before its own event.
   */
  Events events() {
    if (events == null) {
      events = new Events();
    }
    return events;
  }

  final class Events {
    private ResultJson.Output out;
    /** The names of the events in {@code out}, kept only while tracing records them. */
    private final List<String> held = new ArrayList<>();

    /** The same frame {@link #event(String, JsonObject)} writes, with the data written by {@code data}. */
    Events add(String name, ResultJson.Shape data) {
      if (out == null) {
        out = new ResultJson.Output(4096);
      }
      if (stream == StreamFormat.SSE) {
        out.raw("event: " + name + "\ndata: ").write(data).raw("\n\n");
      } else {
        out.write(json -> {
          json.writeStartObject();
          json.writeStringField("event", name);
          json.writeFieldName("data");
          data.write(json);
          json.writeEndObject();
        }).raw("\n");
      }
      if (span.isRecording()) {
        held.add(name);
      }
      return this;
    }

    /** Sends the events held, if any. */
    void send() {
      if (finished() || !streaming() || out == null) {
        return;
      }
      Buffer frames = out.buffer();
      Spans.run("write events", () -> streamResponse().write(frames));
      out = null;
      sent();
    }

    private void sent() {
      TraceHandler.sent(span, held);
      held.clear();
    }

    /** Sends the events and ends the stream in the same write: a separate end costs a flush of its own. */
    void sendAndEnd() {
      if (finished() || !streaming()) {
        return;
      }
      finished = true;
      // the events are recorded before the end: ending the response ends the request's span
      sent();
      if (out == null) {
        ctx.response().end();
      } else {
        Buffer frames = out.buffer();
        out = null;
        Spans.run("write events", () -> ctx.response().end(frames));
      }
    }
  }

  void end() {
    if (finished()) {
      return;
    }
    finished = true;
    ctx.response().end();
  }

  private void write(String name, JsonObject json) {
    if (finished() || !streaming()) {
      return;
    }
    String frame = stream == StreamFormat.SSE
        ? "event: " + name + "\ndata: " + json.encode() + "\n\n"
        : json.encode() + "\n";
    span.addEvent(name);
    streamResponse().write(frame);
  }

  /** The response, chunked from its first write on unless that write also ends it. */
  private HttpServerResponse streamResponse() {
    HttpServerResponse response = ctx.response();
    if (!response.headWritten() && !response.isChunked()) {
      response.setChunked(true);
    }
    return response;
  }

  private static Integer retryAfter(ServiceException error) {
    if (error.retryAfterSeconds() != null) {
      return error.retryAfterSeconds();
    }
    return error.code() == ErrorCode.RATE_LIMIT || error.code() == ErrorCode.OVERLOADED ? 1 : null;
  }
}
