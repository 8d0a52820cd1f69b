package dev.ragretrieval.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.AppConfig.LogFormat;
import dev.ragretrieval.config.ConfigException;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LoggingTest {

  private final Level rootBefore = Logging.context().getLogger(Logger.ROOT_LOGGER_NAME).getLevel();

  @AfterEach
  void restore() {
    Logging.configure(new AppConfig.Logging(rootBefore.levelStr, LogFormat.AUTO, false));
  }

  @Test
  @DisplayName("logback.xml sends logs to the console through the switchable encoder (the request log through its own) and quiets noisy libraries")
  void logbackXmlShape() {
    assertThat(Logging.encoders(Logging.context())).hasSize(2);
    assertThat(Logging.context().getLogger("io.netty").getEffectiveLevel()).isEqualTo(Level.WARN);
    assertThat(Logging.context().getLogger("ai.djl.util").getEffectiveLevel()).isEqualTo(Level.WARN);
  }

  @Test
  @DisplayName("outside a terminal, auto means one JSON object per line on stdout")
  void autoIsJsonWithoutTerminal() {
    // surefire forks without a console, like a container
    assertThat(FormatSwitchingEncoder.resolve(LogFormat.AUTO)).isEqualTo(LogFormat.JSON);
    Logging.configure(new AppConfig.Logging("INFO", LogFormat.AUTO, false));

    String printed = stdoutOf(() -> LoggerFactory.getLogger("dev.ragretrieval.demo").info("ready on port {}", 8080));

    JsonObject line = new JsonObject(printed.strip());
    assertThat(line.getString("message")).isEqualTo("ready on port 8080");
    assertThat(line.getString("level")).isEqualTo("INFO");
    assertThat(line.getString("logger_name")).isEqualTo("dev.ragretrieval.demo");
    assertThat(line.getString("@timestamp")).isNotBlank();
  }

  @Test
  @DisplayName("java.util.logging (Lucene, ONNX Runtime) comes out as our JSON lines, filtered by logback's levels")
  void julJoinsOurLog() {
    Logging.configure(new AppConfig.Logging("INFO", LogFormat.JSON, false));

    String printed = stdoutOf(() -> {
      java.util.logging.Logger lucene = java.util.logging.Logger.getLogger("org.apache.lucene.demo");
      lucene.fine("below INFO: dropped");
      lucene.warning("vector API not used");
      java.util.logging.Logger.getLogger("ai.onnxruntime.demo").info("quiet library below WARN: dropped");
    });

    JsonObject line = new JsonObject(printed.strip());
    assertThat(line.getString("message")).isEqualTo("vector API not used");
    assertThat(line.getString("level")).isEqualTo("WARN");
    assertThat(line.getString("logger_name")).isEqualTo("org.apache.lucene.demo");
  }

  @Test
  @DisplayName("format plain and level WARN switch the running console appender")
  void plainAndLevel() {
    Logging.configure(new AppConfig.Logging("WARN", LogFormat.PLAIN, false));

    String printed = stdoutOf(() -> {
      org.slf4j.Logger log = LoggerFactory.getLogger("dev.ragretrieval.demo");
      log.info("hidden at WARN");
      log.warn("collection {} is missing", "textbook_chunks");
    });

    assertThat(printed).doesNotContain("hidden at WARN").doesNotStartWith("{");
    assertThat(printed.lines()).singleElement().asString()
        .contains("WARN", "dev.ragretrieval.demo", "collection textbook_chunks is missing");
  }

  @Test
  @DisplayName("an unknown level is a one-line configuration error")
  void badLevel() {
    assertThatThrownBy(() -> Logging.configure(new AppConfig.Logging("LOUD", LogFormat.JSON, false)))
        .isInstanceOf(ConfigException.class).hasMessageContaining("RAG_LOG_LEVEL");
  }

  private static String stdoutOf(Runnable action) {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setOut(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
