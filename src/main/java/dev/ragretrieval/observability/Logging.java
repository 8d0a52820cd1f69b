package dev.ragretrieval.observability;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Applies the {@code logging} section at start-up: level, line format and whether request logs
 * may carry query text. logback.xml already chose a format from the environment; this makes the
 * configuration file's choice win when the environment is silent.
 */
public final class Logging {

  /** Libraries that log a lot at INFO (connections, native library loading). */
  static final List<String> NOISY = List.of("io.netty", "io.grpc", "ai.djl", "ai.onnxruntime", "io.vertx.grpc");

  private Logging() {}

  public static void configure(AppConfig.Logging config) {
    LoggerContext context = context();
    Level level = Level.toLevel(config.level(), null);
    if (level == null) {
      throw new ConfigException("RAG_LOG_LEVEL must be TRACE, DEBUG, INFO, WARN, ERROR or OFF (got '" + config.level() + "')");
    }
    context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(level);
    for (String name : NOISY) {
      context.getLogger(name).setLevel(Level.WARN);
    }
    bridgeJul();
    encoders(context).forEach(encoder -> encoder.switchTo(config.format()));
    RequestLog.configure(config.logQueryText());
  }

  /**
   * Points the console appender at stderr ({@code true}) or stdout. One-shot CLI commands print
   * their answer on stdout ({@code query --json | jq}), so their log lines must go elsewhere.
   */
  public static void consoleToStderr(boolean stderr) {
    String target = stderr ? "System.err" : "System.out";
    for (Appender<ILoggingEvent> appender : appenders(context())) {
      // the target is read when the appender starts
      if (appender instanceof ConsoleAppender<ILoggingEvent> console && !target.equals(console.getTarget())) {
        console.stop();
        console.setTarget(target);
        console.start();
      } else if (appender instanceof BatchingConsoleAppender requests && !target.equals(requests.getTarget())) {
        requests.stop();
        requests.setTarget(target);
        requests.start();
      }
    }
  }

  /** The encoders of every appender logback.xml attached (the console's and the request log's). */
  static List<FormatSwitchingEncoder> encoders(LoggerContext context) {
    List<FormatSwitchingEncoder> found = new ArrayList<>();
    for (Appender<ILoggingEvent> appender : appenders(context)) {
      if (appender instanceof OutputStreamAppender<ILoggingEvent> out
          && out.getEncoder() instanceof FormatSwitchingEncoder encoder) {
        found.add(encoder);
      }
    }
    return found;
  }

  private static List<Appender<ILoggingEvent>> appenders(LoggerContext context) {
    List<Appender<ILoggingEvent>> found = new ArrayList<>();
    for (Logger logger : context.getLoggerList()) {
      logger.iteratorForAppenders().forEachRemaining(found::add);
    }
    return found;
  }

  /**
   * Lucene and ONNX Runtime log through java.util.logging: route it to logback so their lines have
   * our format and levels. logback.xml's LevelChangePropagator keeps JUL's levels in step.
   */
  private static synchronized void bridgeJul() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  static LoggerContext context() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      return context;
    }
    throw new IllegalStateException("logback is not the SLF4J backend");
  }
}
