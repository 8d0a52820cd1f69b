package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

@DisplayName("The settings table is the one description of every setting")
class SettingsTableTest {

  private static final String HEADER = "| variable | `conf/config.yaml` |";

  @Test
  @DisplayName("the README and docs/API.md show the table rendered from Settings (else see target/settings-table.md)")
  void documentedTables() throws IOException {
    String expected = Settings.markdownTable();
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target/settings-table.md"), expected);
    assertThat(table(Path.of("README.md"))).isEqualTo(expected);
    assertThat(table(Path.of("docs/API.md"))).isEqualTo(expected);
  }

  @Test
  @DisplayName("conf/config.yaml holds the table's defaults: the file and no file configure the same service")
  void yamlMatchesDefaults() throws IOException {
    Map<String, Object> yaml = new Yaml().load(Files.readString(Path.of(ConfigLoader.DEFAULT_PATH)));
    AppConfig fromFile = ConfigLoader.fromJson(new JsonObject(yaml), Map.of());
    AppConfig fromDefaults = ConfigLoader.fromJson(new JsonObject(), Map.of());
    assertThat(fromFile).isEqualTo(fromDefaults);
  }

  @Test
  @DisplayName("every path is unique and every environment variable names one setting")
  void uniqueNames() {
    assertThat(Settings.all().stream().map(Setting::path)).doesNotHaveDuplicates();
    assertThat(Settings.all().stream().map(Setting::env).filter(e -> e != null)).doesNotHaveDuplicates();
  }

  @Test
  @DisplayName("a value outside a row's range is refused with the row's name and range")
  void rangeFromTable() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConfigLoader.fromJson(new JsonObject(), Map.of("RAG_INGEST_EMBED_CONCURRENCY", "0")))
        .hasMessage("RAG_INGEST_EMBED_CONCURRENCY must be between 1 and 64 (got 0)");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConfigLoader.fromJson(new JsonObject(), Map.of("QDRANT_WRITE_ORDERING", "eventual")))
        .hasMessage("QDRANT_WRITE_ORDERING must be weak, medium or strong (got 'eventual')");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConfigLoader.fromJson(new JsonObject(), Map.of("QDRANT_READ_CONSISTENCY", "most")))
        .hasMessageStartingWith("QDRANT_READ_CONSISTENCY must be a number of replicas");
  }

  @Test
  @DisplayName("the new cluster, ingest, fusion and tracing settings reach the typed records")
  void newSettingsParsed() {
    AppConfig config = ConfigLoader.fromJson(new JsonObject(), Map.of(
        "QDRANT_SHARD_NUMBER", "3", "QDRANT_REPLICATION_FACTOR", "2", "QDRANT_WRITE_CONSISTENCY_FACTOR", "2",
        "QDRANT_WRITE_ORDERING", "Strong", "QDRANT_READ_CONSISTENCY", "majority", "QDRANT_QUANTIZATION", "int8",
        "RAG_INGEST_EMBED_RATE", "6000", "RAG_HTTP_INSTANCES", "2", "RAG_FUSION_RRF_K", "10",
        "RAG_TRACE_QUERY_TEXT", "true"));
    assertThat(config.qdrant().layout().shardNumber()).hasValue(3);
    assertThat(config.qdrant().layout().replicationFactor()).hasValue(2);
    assertThat(config.qdrant().layout().writeConsistencyFactor()).hasValue(2);
    assertThat(config.qdrant().layout().quantization()).isEqualTo(AppConfig.Quantization.INT8);
    assertThat(config.qdrant().writeOrdering()).contains(AppConfig.WriteOrdering.STRONG);
    assertThat(config.qdrant().readConsistency()).contains(AppConfig.ReadConsistency.of("majority"));
    assertThat(config.ingest().embedRatePerMinute()).hasValue(6000);
    assertThat(config.ingest().embedConcurrency()).isEqualTo(4);
    assertThat(config.http().instances()).isEqualTo(2);
    assertThat(config.retrieval().fusion().rrfK()).isEqualTo(10);
    assertThat(config.tracing().queryText()).isTrue();
    AppConfig defaults = ConfigLoader.fromJson(new JsonObject(), Map.of());
    assertThat(defaults.http().instances()).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(defaults.qdrant().layout()).isEqualTo(AppConfig.Layout.QDRANT_DEFAULT);
    assertThat(defaults.qdrant().readConsistency()).isEmpty();
    assertThat(defaults.ingest().embedRatePerMinute()).isEmpty();
  }

  /** The table under HEADER, through its last row. */
  private static String table(Path file) throws IOException {
    String text = Files.readString(file);
    int start = text.indexOf(HEADER);
    assertThat(start).as(file + " has the settings table").isNotNegative();
    int end = text.indexOf("\n\n", start);
    return text.substring(start, end < 0 ? text.length() : end + 1);
  }
}
