package dev.ragretrieval.http;

import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.tracing.Spans;
import dev.ragretrieval.tracing.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;

/**
 * The HTTP side of tracing, first on every route when tracing is on. Vert.x has already made the
 * request's server span (a child of the caller's {@code traceparent}, if any); this names it after
 * the route, answers with a {@code traceparent} header so a client can find the trace, and keeps
 * the span on the request for the {@link Exchange} to describe: the rag.* attributes of the
 * answer, the error code, one event per stream event sent. A stream's span is the request's: it
 * ends with the last event, or when the client leaves (the status then says so).
 */
final class TraceHandler implements Handler<RoutingContext> {

  static final String TRACEPARENT = "traceparent";
  private static final String KEY = "rag.span";

  private TraceHandler() {}

  static TraceHandler create() {
    return new TraceHandler();
  }

  @Override
  public void handle(RoutingContext ctx) {
    Span span = Span.current();
    SpanContext context = span.getSpanContext();
    if (context.isValid()) {
      ctx.put(KEY, span);
      String route = ApiRoutes.label(ctx);
      if (ApiRoutes.allowed(route) != null) {
        span.updateName(ctx.request().method().name() + " " + route);
        span.setAttribute(Spans.HTTP_ROUTE, route);
      }
      ctx.response().putHeader(TRACEPARENT,
          "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex());
    }
    ctx.next();
  }

  /** The request's server span; one that records nothing when tracing is off or the request came before this handler. */
  static Span span(RoutingContext ctx) {
    Span span = ctx.get(KEY);
    return span == null ? Span.getInvalid() : span;
  }

  static void queryId(Span span, String queryId) {
    if (span.isRecording() && queryId != null) {
      span.setAttribute(Spans.QUERY_ID, queryId);
    }
  }

  /** Question text goes into an attribute only when RAG_TRACE_QUERY_TEXT asks for it. */
  static void query(Span span, String text) {
    if (span.isRecording() && text != null && Tracing.queryTextAllowed()) {
      span.setAttribute(Spans.QUERY_TEXT, text);
    }
  }

  static void answered(Span span, RetrievalResult result) {
    if (!span.isRecording()) {
      return;
    }
    span.setAttribute(Spans.COLLECTION, result.collection());
    span.setAttribute(Spans.RESULT_COUNT, result.count());
    if (result.request() != null) {
      span.setAttribute(Spans.TOP_K, result.request().topK());
      if (result.request().plan() != null) {
        span.setAttribute(Spans.SEARCH_MODE, result.request().plan().mode().name().toLowerCase(Locale.ROOT));
      }
    }
  }

  /**
   * The contract's code as {@code error.type}; a server-side code (5xx) makes the span an error,
   * a stream's too although its HTTP status stayed 200. A client's mistake (4xx) leaves the
   * status unset, as the semantic conventions say for server spans.
   */
  static void failed(Span span, ServiceException error) {
    if (!span.isRecording()) {
      return;
    }
    span.setAttribute(Spans.ERROR_TYPE, error.code().name());
    if (error.code().httpStatus() >= 500) {
      span.setStatus(StatusCode.ERROR, error.getMessage());
    }
  }

  /** One span event per stream event, when it is written. */
  static void sent(Span span, List<String> events) {
    for (String event : events) {
      span.addEvent(event);
    }
  }
}
