package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Comma-separated settings (RAG_API_KEYS, RAG_CORS_ORIGINS, QDRANT_COLLECTIONS): set means at least one item. */
class ListSettingTest {

  private static AppConfig config(Map<String, String> env) {
    return ConfigLoader.fromJson(new JsonObject(), env);
  }

  @Test
  @DisplayName("items are split on commas and trimmed; a blank variable counts as unset")
  void itemsAndBlank() {
    assertThat(config(Map.of("RAG_API_KEYS", " k1 ,k2,, ")).security().apiKeys()).containsExactlyInAnyOrder("k1", "k2");
    assertThat(config(Map.of("RAG_API_KEYS", "  ")).security().authRequired()).isFalse();
    assertThat(config(Map.of()).security().authRequired()).isFalse();
  }

  @Test
  @DisplayName("a variable of only commas and spaces stops start-up, naming it and not echoing the value:"
      + " RAG_API_KEYS=',' would otherwise serve without keys")
  void onlyCommasIsAnError() {
    for (String variable : new String[] {"RAG_API_KEYS", "RAG_CORS_ORIGINS", "QDRANT_COLLECTIONS"}) {
      assertThatThrownBy(() -> config(Map.of(variable, " , ,")))
          .isInstanceOf(ConfigException.class)
          .hasMessage(variable + " is set but names nothing (only commas and spaces): give the values comma-separated,"
              + " or leave it unset");
    }
    assertThatThrownBy(() -> ConfigLoader.fromJson(new JsonObject().put("security", new JsonObject().put("api_keys", ",")),
        Map.of())).isInstanceOf(ConfigException.class).hasMessageStartingWith("security.api_keys is set but names nothing");
  }

  @Test
  @DisplayName("RAG_CORS_ORIGINS takes *, null and scheme://host[:port]; anything else stops start-up naming the"
      + " variable (it failed as 'cannot listen on 0.0.0.0:8080')")
  void corsOrigins() {
    assertThat(config(Map.of("RAG_CORS_ORIGINS", "https://docs.example.com, http://localhost:3000,null")).http()
        .corsOrigins()).containsExactly("https://docs.example.com", "http://localhost:3000", "null");
    assertThat(config(Map.of()).http().corsOrigins()).containsExactly("*");
    for (String bad : new String[] {"docs.example.com", "https://*.example.com", "https://user@example.com", "https://x.com?a"}) {
      assertThatThrownBy(() -> config(Map.of("RAG_CORS_ORIGINS", "https://ok.example.com," + bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessage("RAG_CORS_ORIGINS '" + bad + "' is not an origin (scheme://host[:port], such as"
              + " https://docs.example.com; or *)");
    }
  }
}
