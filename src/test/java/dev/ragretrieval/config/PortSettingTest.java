package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A bad port stops start-up with a line naming the variable the operator sets (docs/API.md section 2). */
class PortSettingTest {

  @Test
  @DisplayName("RAG_HTTP_PORT=abc and RAG_HTTP_PORT=70000 are one-line errors naming RAG_HTTP_PORT")
  void badPortNamesTheVariable() {
    assertThatThrownBy(() -> ConfigLoader.fromJson(new JsonObject(), Map.of("RAG_HTTP_PORT", "abc")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("RAG_HTTP_PORT must be an integer (got 'abc')");
    assertThatThrownBy(() -> ConfigLoader.fromJson(new JsonObject(), Map.of("RAG_HTTP_PORT", "70000")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("RAG_HTTP_PORT must be between 0 and 65535 (got 70000)");
  }
}
