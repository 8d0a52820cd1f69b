package dev.ragretrieval.tracing;

import dev.ragretrieval.error.ServiceException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The service's own spans around steps that return a {@link Future}: the span is a child of the
 * current one, is current while the step starts (so Vert.x's client and event-bus spans started
 * there nest under it), and ends when the future completes; a failure marks it as an error with
 * the contract's code in {@code error.type}. With tracing off the step runs with a span that
 * records nothing, and nothing else happens.
 *
 * <p>Attribute names follow OpenTelemetry's semantic conventions where they exist; the service's
 * own are in the {@code rag.*} namespace.
 */
public final class Spans {

  public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  public static final AttributeKey<String> HTTP_ROUTE = AttributeKey.stringKey("http.route");
  public static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system.name");
  public static final AttributeKey<String> DB_COLLECTION = AttributeKey.stringKey("db.collection.name");
  public static final AttributeKey<String> DB_OPERATION = AttributeKey.stringKey("db.operation.name");
  public static final AttributeKey<Long> DB_BATCH_SIZE = AttributeKey.longKey("db.operation.batch.size");
  public static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  public static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  public static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  public static final AttributeKey<Long> RPC_GRPC_STATUS = AttributeKey.longKey("rpc.grpc.status_code");
  public static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  public static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");

  public static final AttributeKey<String> QUERY_ID = AttributeKey.stringKey("rag.query_id");
  public static final AttributeKey<String> QUERY_TEXT = AttributeKey.stringKey("rag.query.text");
  public static final AttributeKey<String> COLLECTION = AttributeKey.stringKey("rag.collection");
  public static final AttributeKey<Long> TOP_K = AttributeKey.longKey("rag.top_k");
  public static final AttributeKey<String> SEARCH_MODE = AttributeKey.stringKey("rag.search_mode");
  public static final AttributeKey<Long> CANDIDATES = AttributeKey.longKey("rag.candidates");
  public static final AttributeKey<Long> RESULT_COUNT = AttributeKey.longKey("rag.result_count");
  public static final AttributeKey<Boolean> CACHE_HIT = AttributeKey.booleanKey("rag.cache.hit");
  public static final AttributeKey<Long> CACHE_HITS = AttributeKey.longKey("rag.cache.hits");
  public static final AttributeKey<Long> TEXTS = AttributeKey.longKey("rag.embedding.texts");
  public static final AttributeKey<String> INPUT_TYPE = AttributeKey.stringKey("rag.embedding.input_type");
  public static final AttributeKey<String> MODEL = AttributeKey.stringKey("rag.model");
  public static final AttributeKey<String> UPSTREAM = AttributeKey.stringKey("rag.upstream");
  public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("rag.operation");
  public static final AttributeKey<Long> INPUTS = AttributeKey.longKey("rag.inputs");
  public static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("rag.batch.size");
  public static final AttributeKey<String> ERROR_CODE = AttributeKey.stringKey("rag.error.code");

  private Spans() {}

  /** Whether spans are recorded at all: attribute values that cost something to compute are skipped when not. */
  public static boolean enabled() {
    return Tracing.current().enabled();
  }

  /** An INTERNAL span around {@code step}. */
  public static <T> Future<T> around(String name, Function<Span, Future<T>> step) {
    return around(name, SpanKind.INTERNAL, step);
  }

  /** A span of {@code kind} around {@code step}, which may set attributes on the span it is given. */
  public static <T> Future<T> around(String name, SpanKind kind, Function<Span, Future<T>> step) {
    Tracing tracing = Tracing.current();
    if (!tracing.enabled()) {
      return step.apply(Span.getInvalid());
    }
    return around(tracing, Context.current(), name, kind, step);
  }

  /**
   * As {@link #around(String, SpanKind, Function)} under {@code parent}: for a step that starts in
   * a callback, where the current span may no longer be the one the work belongs to.
   */
  public static <T> Future<T> around(Context parent, String name, SpanKind kind, Function<Span, Future<T>> step) {
    Tracing tracing = Tracing.current();
    if (!tracing.enabled()) {
      return step.apply(Span.getInvalid());
    }
    return around(tracing, parent, name, kind, step);
  }

  private static <T> Future<T> around(Tracing tracing, Context parent, String name, SpanKind kind,
      Function<Span, Future<T>> step) {
    Span span = tracing.tracer().spanBuilder(name).setParent(parent).setSpanKind(kind).startSpan();
    Future<T> result;
    try (Scope started = parent.with(span).makeCurrent()) {
      result = step.apply(span);
    } catch (RuntimeException e) {
      failed(span, e);
      span.end();
      throw e;
    }
    return result.onComplete(done -> {
      if (done.failed()) {
        failed(span, done.cause());
      }
      span.end();
    });
  }

  /** A span around {@code step}, which runs now and at once (a write handed to the connection). */
  public static void run(String name, Runnable step) {
    Tracing tracing = Tracing.current();
    if (!tracing.enabled()) {
      step.run();
      return;
    }
    Span span = tracing.tracer().spanBuilder(name).setParent(Context.current()).startSpan();
    try (Scope scope = span.makeCurrent()) {
      step.run();
    } finally {
      span.end();
    }
  }

  /** A span that starts and ends now, for a step that took no time worth measuring (a cache look-up). */
  public static Span instant(String name) {
    Tracing tracing = Tracing.current();
    if (!tracing.enabled()) {
      return Span.getInvalid();
    }
    return tracing.tracer().spanBuilder(name).setParent(Context.current()).startSpan();
  }

  /** The current context, to hand to {@link #around(Context, String, SpanKind, Function)} later; root when tracing is off. */
  public static Context parent() {
    return Tracing.current().enabled() ? Context.current() : Context.root();
  }

  /**
   * Runs {@code step} with {@code context} current: a step in a callback (a pooled connection
   * handed over) whose Vert.x client span should nest under the span that asked for it.
   */
  public static <T> T within(Context context, Supplier<T> step) {
    if (context == Context.root()) {
      return step.get();
    }
    try (Scope scope = context.makeCurrent()) {
      return step.get();
    }
  }

  /** Writes the current span's {@code traceparent} (and {@code tracestate}) into outgoing headers or gRPC metadata. */
  public static void inject(MultiMap headers) {
    Tracing tracing = Tracing.current();
    if (tracing.enabled()) {
      tracing.openTelemetry().getPropagators().getTextMapPropagator().inject(Context.current(), headers, MultiMap::set);
    }
  }

  /**
   * Writes {@code span}'s {@code traceparent} into gRPC metadata: the call's own span, also when the
   * request is made in a callback (a new connection opened first) where it is no longer current.
   */
  public static void inject(Span span, MultiMap headers) {
    Tracing tracing = Tracing.current();
    if (tracing.enabled() && span.getSpanContext().isValid()) {
      tracing.openTelemetry().getPropagators().getTextMapPropagator()
          .inject(Context.current().with(span), headers, MultiMap::set);
    }
  }

  /** Names the store and operation on the current span (a store call's attempt); returns {@code call}. */
  public static <T> Future<T> store(String system, String operation, Future<T> call) {
    if (Tracing.current().enabled()) {
      Span span = Span.current();
      span.setAttribute(DB_SYSTEM, system);
      span.setAttribute(DB_OPERATION, operation);
    }
    return call;
  }

  /** Marks {@code span} as failed: ERROR status with the message, the contract's code as {@code error.type}. */
  public static void failed(Span span, Throwable failure) {
    if (!span.isRecording()) {
      return;
    }
    ServiceException error = ServiceException.from(failure);
    span.setAttribute(ERROR_TYPE, error.code().name());
    span.setStatus(StatusCode.ERROR, error.getMessage());
  }
}
