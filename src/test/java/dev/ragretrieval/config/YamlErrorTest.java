package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YamlErrorTest {

  @TempDir
  Path dir;

  @Test
  @DisplayName("a configuration file with bad YAML fails naming the line and column")
  void badYamlNamesTheLine() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, "http:\n  port: 8080\nqdrant:\n  host: [unclosed\n  collection: x\n");
    Vertx vertx = Vertx.vertx();
    try {
      assertThatThrownBy(() -> ConfigLoader.load(vertx, Map.of("RAG_CONFIG", file.toString()))
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("cannot read configuration file " + file)
          .hasMessageMatching("(?s).*invalid YAML at line [0-9]+, column [0-9]+: .*");
    } finally {
      vertx.close();
    }
  }
}
