package dev.ragretrieval.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.vertx.core.Context;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.spi.tracing.SpanKind;
import io.vertx.core.spi.tracing.TagExtractor;
import io.vertx.core.spi.tracing.VertxTracer;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.tracing.opentelemetry.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Vert.x's OpenTelemetry tracer with three corrections for this service:
 * <ul>
 *   <li>a server span never carries the query string ({@code url.query}, {@code http.url}): a
 *       GET stream carries the question there, and question text goes into attributes only when
 *       RAG_TRACE_QUERY_TEXT allows it;</li>
 *   <li>{@code http.response.status_code} is a number, as the semantic conventions say (Vert.x
 *       writes a string);</li>
 *   <li>span status: a server span is an error on a 5xx or when the client went away before the
 *       response ended (a stream the reader left), a client span on any status from 400; Vert.x
 *       sets none.</li>
 * </ul>
 */
final class VertxSpans implements VertxTracer<Operation, Operation> {

  static final String STATUS_CODE = "http.response.status_code";
  static final String CLIENT_GONE = "the client closed the connection before the response ended";

  private final VertxTracer<Operation, Operation> delegate;

  @SuppressWarnings("unchecked")
  VertxSpans(VertxTracer<?, ?> delegate) {
    this.delegate = (VertxTracer<Operation, Operation>) delegate;
  }

  @Override
  public <R> Operation receiveRequest(Context context, SpanKind kind, TracingPolicy policy, R request, String operation,
      Iterable<Map.Entry<String, String>> headers, TagExtractor<R> tagExtractor) {
    TagExtractor<R> tags = request instanceof HttpServerRequest && !Tracing.queryTextAllowed()
        ? withoutQuery(request, tagExtractor) : tagExtractor;
    return delegate.receiveRequest(context, kind, policy, request, operation, headers, tags);
  }

  @Override
  public <R> void sendResponse(Context context, R response, Operation operation, Throwable failure,
      TagExtractor<R> tagExtractor) {
    if (operation != null) {
      int status = copyTags(operation.span(), response, tagExtractor);
      if (failure != null) {
        operation.span().setAttribute("rag.client_disconnected", failure instanceof HttpClosedException);
        operation.span().setStatus(StatusCode.ERROR,
            failure instanceof HttpClosedException ? CLIENT_GONE : String.valueOf(failure.getMessage()));
      } else if (status >= 500 && !described(operation.span())) {
        operation.span().setStatus(StatusCode.ERROR);
      }
    }
    delegate.sendResponse(context, null, operation, failure, TagExtractor.empty());
  }

  @Override
  public <R> Operation sendRequest(Context context, SpanKind kind, TracingPolicy policy, R request, String operation,
      BiConsumer<String, String> headers, TagExtractor<R> tagExtractor) {
    return delegate.sendRequest(context, kind, policy, request, operation, headers, tagExtractor);
  }

  @Override
  public <R> void receiveResponse(Context context, R response, Operation operation, Throwable failure,
      TagExtractor<R> tagExtractor) {
    if (operation != null) {
      int status = copyTags(operation.span(), response, tagExtractor);
      if (failure != null) {
        operation.span().setStatus(StatusCode.ERROR, String.valueOf(failure.getMessage()));
      } else if (status >= 400) {
        operation.span().setStatus(StatusCode.ERROR);
      }
    }
    delegate.receiveResponse(context, null, operation, failure, TagExtractor.empty());
  }

  @Override
  public void close() {
    delegate.close();
  }

  /** Whether the service already gave the span its error (with the code and message); Vert.x's bare status must not replace it. */
  private static boolean described(Span span) {
    return span instanceof ReadableSpan readable && readable.getAttribute(Spans.ERROR_TYPE) != null;
  }

  /** Sets the response's tags on {@code span}, the status code as a number; returns that status (0 when none). */
  private static <R> int copyTags(Span span, R response, TagExtractor<R> tags) {
    if (response == null) {
      return 0;
    }
    int status = 0;
    int count = tags.len(response);
    for (int i = 0; i < count; i++) {
      String name = tags.name(response, i);
      String value = tags.value(response, i);
      if (STATUS_CODE.equals(name)) {
        status = Integer.parseInt(value);
        span.setAttribute(STATUS_CODE, (long) status);
      } else {
        span.setAttribute(name, value);
      }
    }
    return status;
  }

  /** {@code request}'s tags minus the ones that hold the query string. */
  private static <R> TagExtractor<R> withoutQuery(R request, TagExtractor<R> tags) {
    List<String> names = new ArrayList<>();
    List<String> values = new ArrayList<>();
    tags.extractTo(request, (name, value) -> {
      if (!name.equals("url.query") && !name.equals("http.url")) {
        names.add(name);
        values.add(value);
      }
    });
    return new TagExtractor<>() {
      @Override
      public int len(R ignored) {
        return names.size();
      }

      @Override
      public String name(R ignored, int index) {
        return names.get(index);
      }

      @Override
      public String value(R ignored, int index) {
        return values.get(index);
      }
    };
  }
}
