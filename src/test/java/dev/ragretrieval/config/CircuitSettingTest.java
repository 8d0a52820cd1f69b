package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Each upstream's circuit_breaker section: defaults, its own values, and one-line errors. */
class CircuitSettingTest {

  private static AppConfig load(JsonObject yaml) {
    return ConfigLoader.fromJson(yaml, Map.of());
  }

  @Test
  @DisplayName("without a circuit_breaker section both upstreams get the default breaker")
  void defaults() {
    AppConfig config = load(new JsonObject());
    assertThat(config.qdrant().circuit()).isEqualTo(AppConfig.Circuit.DEFAULT);
    assertThat(config.embedding().circuit()).isEqualTo(AppConfig.Circuit.DEFAULT);
    assertThat(AppConfig.Circuit.DEFAULT.enabled()).isTrue();
  }

  @Test
  @DisplayName("qdrant and embedding are configured separately; failures: 0 turns a breaker off")
  void separateSections() {
    AppConfig config = load(new JsonObject()
        .put("qdrant", new JsonObject().put("circuit_breaker",
            new JsonObject().put("failures", 0)))
        .put("embedding", new JsonObject().put("circuit_breaker",
            new JsonObject().put("failures", 7).put("window_ms", 2000).put("open_ms", 30000))));
    assertThat(config.qdrant().circuit().enabled()).isFalse();
    assertThat(config.embedding().circuit())
        .isEqualTo(new AppConfig.Circuit(7, Duration.ofSeconds(2), Duration.ofSeconds(30)));
  }

  @Test
  @DisplayName("a negative count or a non-number is a one-line error naming the setting")
  void badValues() {
    assertThatThrownBy(() -> load(new JsonObject().put("qdrant", new JsonObject().put("circuit_breaker",
        new JsonObject().put("failures", -1)))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("qdrant.circuit_breaker.failures must be between 0 and 1000000 (got -1)");
    assertThatThrownBy(() -> load(new JsonObject().put("embedding", new JsonObject().put("circuit_breaker",
        new JsonObject().put("open_ms", "soon")))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("embedding.circuit_breaker.open_ms must be an integer (got 'soon')");
  }
}
