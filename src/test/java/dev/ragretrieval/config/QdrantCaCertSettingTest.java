package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** QDRANT_CA_CERT / qdrant.ca_cert: checked at start-up, so a wrong path never reaches a Qdrant call. */
class QdrantCaCertSettingTest {

  @Test
  @DisplayName("QDRANT_CA_CERT naming a missing file stops start-up with one line naming QDRANT_CA_CERT")
  void missingFile(@TempDir Path dir) {
    String missing = dir.resolve("nope.pem").toString();
    assertThatThrownBy(() -> ConfigLoader.fromJson(new JsonObject(),
        Map.of("QDRANT_HOST", "qdrant.internal", "QDRANT_TLS", "true", "QDRANT_CA_CERT", missing)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("QDRANT_CA_CERT '" + missing + "' is not a readable file")
        .hasMessageNotContaining("\n");
  }

  @Test
  @DisplayName("a directory is not a CA file either")
  void directory(@TempDir Path dir) {
    assertThatThrownBy(() -> ConfigLoader.fromJson(new JsonObject(),
        Map.of("QDRANT_TLS", "true", "QDRANT_CA_CERT", dir.toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("QDRANT_CA_CERT ");
  }

  @Test
  @DisplayName("QDRANT_CA_CERT with QDRANT_TLS off is refused rather than silently talking plaintext")
  void needsTls(@TempDir Path dir) throws IOException {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    assertThatThrownBy(() -> ConfigLoader.fromJson(new JsonObject(), Map.of("QDRANT_CA_CERT", ca.toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessage("QDRANT_CA_CERT is set but QDRANT_TLS is false; set QDRANT_TLS=true");
  }

  @Test
  @DisplayName("the YAML key qdrant.ca_cert and the variable both set the CA file; unset means the JVM's trust store")
  void readFromYamlAndEnv(@TempDir Path dir) throws IOException {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    JsonObject yaml = new JsonObject().put("qdrant", new JsonObject().put("tls", true).put("ca_cert", ca.toString()));

    assertThat(ConfigLoader.fromJson(yaml, Map.of()).qdrant().caCert()).contains(ca);
    assertThat(ConfigLoader.fromJson(new JsonObject(), Map.of("QDRANT_TLS", "true", "QDRANT_CA_CERT", ca.toString()))
        .qdrant().caCert()).contains(ca);
    assertThat(ConfigLoader.fromJson(new JsonObject(), Map.of("QDRANT_TLS", "true")).qdrant().caCert())
        .isEqualTo(Optional.empty());
  }
}
