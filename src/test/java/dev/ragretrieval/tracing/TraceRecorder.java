package dev.ragretrieval.tracing;

import static dev.ragretrieval.testing.Await.eventually;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Tracing into memory for tests: an SDK with an in-memory exporter, installed as the process's
 * tracing, and a Vertx that traces through it. {@link #close()} puts tracing back to off.
 */
public final class TraceRecorder implements AutoCloseable {

  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
      .build();
  final Tracing tracing = Tracing.of(sdk).install();

  public Vertx vertx() {
    return tracing.applyTo(Vertx.builder()).build();
  }

  public List<SpanData> spans() {
    return exporter.getFinishedSpanItems();
  }

  /** Waits for the server span of a request to {@code path} of trace {@code traceId} and returns it. */
  SpanData server(String traceId, String route) {
    return await(span -> span.getTraceId().equals(traceId) && span.getKind() == SpanKind.SERVER
        && route.equals(span.getAttributes().get(Spans.HTTP_ROUTE)));
  }

  /** Waits for a finished span matching {@code wanted}. */
  public SpanData await(Predicate<SpanData> wanted) {
    eventually(() -> spans().stream().anyMatch(wanted));
    return spans().stream().filter(wanted).findFirst().orElseThrow();
  }

  List<SpanData> trace(String traceId) {
    return spans().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
  }

  static Optional<SpanData> named(List<SpanData> spans, String name) {
    return spans.stream().filter(s -> s.getName().equals(name)).findFirst();
  }

  static List<SpanData> children(List<SpanData> spans, SpanData parent) {
    return spans.stream().filter(s -> s.getParentSpanId().equals(parent.getSpanId())).toList();
  }

  /** The tree as indented lines "name [kind] attrs", for failure messages and the README. */
  static String tree(List<SpanData> spans) {
    StringBuilder out = new StringBuilder();
    spans.stream().filter(s -> spans.stream().noneMatch(p -> p.getSpanId().equals(s.getParentSpanId())))
        .forEach(root -> print(spans, root, 0, out));
    return out.toString();
  }

  private static void print(List<SpanData> spans, SpanData span, int depth, StringBuilder out) {
    out.append("  ".repeat(depth)).append(span.getName()).append(" [").append(span.getKind()).append("] ")
        .append(span.getStatus().getStatusCode()).append(' ')
        .append(span.getAttributes().asMap().entrySet().stream()
            .map(e -> e.getKey().getKey() + "=" + e.getValue()).sorted().collect(Collectors.joining(", ")))
        .append('\n');
    spans.stream().filter(s -> s.getParentSpanId().equals(span.getSpanId()))
        .sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos))
        .forEach(child -> print(spans, child, depth + 1, out));
  }

  @Override
  public void close() {
    tracing.shutdown();
    sdk.close();
  }
}
