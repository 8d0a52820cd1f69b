package dev.ragretrieval.observability;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.core.JsonGenerator;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.io.IOException;
import net.logstash.logback.composite.AbstractJsonProvider;

/**
 * Adds {@code trace_id} and {@code span_id} to a JSON log line written inside a traced request:
 * the span current on the thread that logs (Vert.x keeps it with the request's context, so lines
 * from callbacks carry it too). The console appender encodes on the logging thread, which is
 * what makes the current span the right one. Lines outside a trace get neither field.
 */
public final class TraceIdJsonProvider extends AbstractJsonProvider<ILoggingEvent> {

  @Override
  public void writeTo(JsonGenerator generator, ILoggingEvent event) throws IOException {
    SpanContext span = Span.current().getSpanContext();
    if (span.isValid()) {
      generator.writeStringField("trace_id", span.getTraceId());
      generator.writeStringField("span_id", span.getSpanId());
    }
  }
}
