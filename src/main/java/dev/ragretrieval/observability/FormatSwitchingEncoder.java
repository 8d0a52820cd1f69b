package dev.ragretrieval.observability;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import dev.ragretrieval.config.AppConfig.LogFormat;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import net.logstash.logback.encoder.LogstashEncoder;

/**
 * Writes readable lines or one JSON object per line and can switch between them while running.
 * logback.xml names it so the first log line already has the right shape (RAG_LOG_FORMAT, else a
 * terminal check), before the configuration file is read; {@link Logging#configure} may switch it
 * afterwards. Switching swaps one started delegate for another, so no event is half-encoded.
 */
public final class FormatSwitchingEncoder extends EncoderBase<ILoggingEvent> {

  static final String PLAIN_PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%fields%n";

  private volatile LogFormat format = fromEnvironment();
  private volatile Encoder<ILoggingEvent> delegate;

  /** Auto (plain on a terminal, JSON elsewhere) unless RAG_LOG_FORMAT says otherwise. */
  static LogFormat fromEnvironment() {
    String value = System.getenv("RAG_LOG_FORMAT");
    try {
      return value == null || value.isBlank() ? LogFormat.AUTO : LogFormat.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return LogFormat.AUTO; // ConfigLoader reports the bad value in one line at start-up
    }
  }

  /** AUTO resolved: a terminal gets plain lines, anything else (containers, pipes) JSON. */
  public static LogFormat resolve(LogFormat format) {
    if (format == LogFormat.AUTO) {
      return System.console() != null ? LogFormat.PLAIN : LogFormat.JSON;
    }
    return format;
  }

  /** Logback's setter for {@code <format>json</format>} in an XML configuration. */
  public void setFormat(String value) {
    this.format = LogFormat.valueOf(value.trim().toUpperCase(Locale.ROOT));
  }

  /** The resolved format in use (JSON or PLAIN). */
  public LogFormat format() {
    return resolve(format);
  }

  /** Switches to {@code format} (AUTO is resolved now); safe while other threads log. */
  public void switchTo(LogFormat newFormat) {
    this.format = newFormat;
    if (isStarted()) {
      Encoder<ILoggingEvent> old = delegate;
      delegate = build(resolve(newFormat));
      old.stop();
    }
  }

  @Override
  public void start() {
    delegate = build(resolve(format));
    super.start();
  }

  @Override
  public void stop() {
    Encoder<ILoggingEvent> current = delegate;
    if (current != null) {
      current.stop();
    }
    super.stop();
  }

  @Override
  public byte[] headerBytes() {
    return delegate.headerBytes();
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate.encode(event);
  }

  @Override
  public byte[] footerBytes() {
    return delegate.footerBytes();
  }

  private Encoder<ILoggingEvent> build(LogFormat resolved) {
    if (resolved == LogFormat.JSON) {
      LogstashEncoder json = new LogstashEncoder();
      json.setContext(getContext());
      json.setTimeZone("UTC");
      json.addProvider(new TraceIdJsonProvider());
      json.start();
      return json;
    }
    PatternLayout layout = new PatternLayout();
    layout.getInstanceConverterMap().put("fields", StructuredFieldsConverter::new);
    layout.setContext(getContext());
    layout.setPattern(PLAIN_PATTERN);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> plain = new LayoutWrappingEncoder<>();
    plain.setContext(getContext());
    plain.setLayout(layout);
    plain.setCharset(StandardCharsets.UTF_8);
    plain.start();
    return plain;
  }
}
