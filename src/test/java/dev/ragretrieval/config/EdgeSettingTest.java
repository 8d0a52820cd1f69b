package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The edge's limits: their variables, their defaults, and the checks that stop a bad start. */
class EdgeSettingTest {

  private static AppConfig.Edge edge(Map<String, String> env) {
    return ConfigLoader.fromJson(new JsonObject(), env).http().edge();
  }

  @Test
  @DisplayName("the defaults: 4096 connections + 64 reserve, header 10 s, idle 75 s, request line and headers 32 KiB")
  void defaults() throws Exception {
    assertThat(edge(Map.of())).isEqualTo(AppConfig.Edge.DEFAULT);
    assertThat(AppConfig.Edge.DEFAULT).isEqualTo(new AppConfig.Edge(4096, 64, Duration.ofSeconds(10),
        Duration.ofSeconds(75), 32768, 32768));
    JsonObject shipped = new JsonObject(new com.fasterxml.jackson.databind.ObjectMapper(
        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readValue(Files.readString(Path.of("conf/config.yaml")), Map.class));
    assertThat(ConfigLoader.fromJson(shipped, Map.of()).http().edge()).isEqualTo(AppConfig.Edge.DEFAULT);
  }

  @Test
  @DisplayName("each limit is read from its RAG_ variable")
  void variables() {
    assertThat(edge(Map.of("RAG_MAX_CONNECTIONS", "10", "RAG_HEADER_TIMEOUT_MS", "250", "RAG_IDLE_TIMEOUT_MS", "500",
        "RAG_URI_LIMIT_BYTES", "20000", "RAG_HEADER_LIMIT_BYTES", "65536")))
        .isEqualTo(new AppConfig.Edge(10, 64, Duration.ofMillis(250), Duration.ofMillis(500), 20000, 65536));
  }

  @Test
  @DisplayName("a request line or header limit too small for the longest allowed query stops start-up, naming the variable")
  void limitsMustFitTheLongestQuery() {
    assertThatThrownBy(() -> edge(Map.of("RAG_URI_LIMIT_BYTES", "8192")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("RAG_URI_LIMIT_BYTES must be at least 16096 (got 8192)");
    assertThatThrownBy(() -> edge(Map.of("RAG_HEADER_LIMIT_BYTES", "8192")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("RAG_HEADER_LIMIT_BYTES must be at least 16096");
    // a smaller query limit allows a smaller request line
    assertThat(ConfigLoader.fromJson(new JsonObject().put("retrieval", new JsonObject().put("max_query_chars", 100)),
        Map.of("RAG_URI_LIMIT_BYTES", "8192")).http().edge().uriLimitBytes()).isEqualTo(8192);
  }

  @Test
  @DisplayName("zero or non-numeric limits are one-line errors naming the variable")
  void badValues() {
    assertThatThrownBy(() -> edge(Map.of("RAG_MAX_CONNECTIONS", "0")))
        .isInstanceOf(ConfigException.class).hasMessage("RAG_MAX_CONNECTIONS must be between 1 and 1000000 (got 0)");
    assertThatThrownBy(() -> edge(Map.of("RAG_IDLE_TIMEOUT_MS", "soon")))
        .isInstanceOf(ConfigException.class).hasMessage("RAG_IDLE_TIMEOUT_MS must be an integer (got 'soon')");
    assertThatThrownBy(() -> edge(Map.of("RAG_HEADER_TIMEOUT_MS", "0")))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("RAG_HEADER_TIMEOUT_MS must be between 1");
  }
}
