package dev.ragretrieval.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VertxBuilder;
import io.vertx.tracing.opentelemetry.OpenTelemetryTracingFactory;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * OpenTelemetry tracing, off unless the standard OTEL_* variables ask for it. When on, the SDK is
 * built by the SDK's autoconfigure module from those variables (exporter, endpoint, protocol,
 * sampler, resource, propagators...), Vert.x traces its HTTP server and client and the event bus
 * with it ({@link #applyTo}), and the service's own spans ({@link Spans}) use the same tracer.
 *
 * <p>One tracing per process: {@link #install} makes it the one {@link #current()} returns, as the
 * standard variables are the process's. Off costs a boolean check per span site.
 */
public final class Tracing {

  /** The instrumentation scope of the service's own spans. */
  public static final String SCOPE = "dev.ragretrieval";

  private static final Tracing OFF = new Tracing(OpenTelemetry.noop(), false, null);
  private static volatile Tracing current = OFF;
  /** RAG_TRACE_QUERY_TEXT: whether question text may go into attributes (url.query, rag.query.text). */
  private static volatile boolean queryText;

  private final OpenTelemetry openTelemetry;
  private final Tracer tracer;
  private final boolean enabled;
  private final OpenTelemetrySdk owned; // shut down by this class; null when the caller owns the SDK

  private Tracing(OpenTelemetry openTelemetry, boolean enabled, OpenTelemetrySdk owned) {
    this.openTelemetry = openTelemetry;
    this.tracer = openTelemetry.getTracer(SCOPE);
    this.enabled = enabled;
    this.owned = owned;
  }

  public static Tracing off() {
    return OFF;
  }

  /** Tracing with an SDK the caller built and closes (tests: an in-memory exporter). */
  public static Tracing of(OpenTelemetry openTelemetry) {
    return new Tracing(openTelemetry, true, null);
  }

  /**
   * Off unless {@code env} asks for traces: an OTLP endpoint ({@code OTEL_EXPORTER_OTLP_ENDPOINT} or
   * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}) or a traces exporter other than {@code none}
   * ({@code OTEL_TRACES_EXPORTER}), and {@code OTEL_SDK_DISABLED} not true. Then every OTEL_*
   * variable is the SDK's to read. Metrics and logs stay with Prometheus and stdout unless their
   * own OTEL_*_EXPORTER says otherwise; the service name defaults to rag-retrieval.
   */
  public static Tracing fromEnvironment(Map<String, String> env) {
    if (!requested(env)) {
      return OFF;
    }
    Map<String, String> defaults = Map.of(
        "otel.service.name", "rag-retrieval",
        "otel.metrics.exporter", "none",
        "otel.logs.exporter", "none");
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> defaults)
        // the process environment is read by the SDK itself; this adds the one the CLI was given
        .addPropertiesSupplier(() -> properties(env))
        .build()
        .getOpenTelemetrySdk();
    return new Tracing(sdk, true, sdk);
  }

  static boolean requested(Map<String, String> env) {
    if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "").trim())) {
      return false;
    }
    String exporter = env.getOrDefault("OTEL_TRACES_EXPORTER", "").trim();
    return present(env, "OTEL_EXPORTER_OTLP_ENDPOINT") || present(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        || (!exporter.isEmpty() && !exporter.equalsIgnoreCase("none"));
  }

  private static boolean present(Map<String, String> env, String name) {
    String value = env.get(name);
    return value != null && !value.isBlank();
  }

  /** OTEL_EXPORTER_OTLP_ENDPOINT -> otel.exporter.otlp.endpoint, as the SDK names its properties. */
  private static Map<String, String> properties(Map<String, String> env) {
    Map<String, String> properties = new HashMap<>();
    env.forEach((name, value) -> {
      if (name.startsWith("OTEL_")) {
        properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value);
      }
    });
    return properties;
  }

  /** The process's tracing; {@link #off()} until one is installed. */
  public static Tracing current() {
    return current;
  }

  /** Makes this the process's tracing. */
  public Tracing install() {
    current = this;
    return this;
  }

  /** Set once at start-up from RAG_TRACE_QUERY_TEXT. */
  public static void allowQueryText(boolean allowed) {
    queryText = allowed;
  }

  public static boolean queryTextAllowed() {
    return queryText;
  }

  public boolean enabled() {
    return enabled;
  }

  public Tracer tracer() {
    return tracer;
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  /** With tracing on, Vert.x traces HTTP server and client requests and event-bus messages through it. */
  public VertxBuilder applyTo(VertxBuilder builder) {
    if (!enabled) {
      return builder;
    }
    OpenTelemetryTracingFactory vertxTracing = new OpenTelemetryTracingFactory(openTelemetry);
    return builder.withTracer(options -> new VertxSpans(vertxTracing.tracer(options)));
  }

  /**
   * Exports what is still buffered and stops the SDK this class built (the SDK's own JVM shutdown
   * hook does the same when the process exits); the process's tracing is off afterwards.
   */
  public Future<Void> shutdown() {
    if (current == this) {
      current = OFF;
    }
    if (owned == null) {
      return Future.succeededFuture();
    }
    Promise<Void> done = Promise.promise();
    CompletableResultCode closing = owned.shutdown();
    closing.whenComplete(() -> done.tryComplete());
    return done.future();
  }
}
