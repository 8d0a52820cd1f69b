package dev.ragretrieval.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.ConfigLoader;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** docker-compose.yml, checked without Docker: it parses, pins what it pulls and sets only real variables. */
@DisplayName("docker-compose.yml: Qdrant, a one-shot ingest of the sample book and the service")
class DockerComposeTest {

  private static final Path COMPOSE = Path.of("docker-compose.yml");
  private static Map<String, Object> compose;
  private static Map<String, Map<String, Object>> services;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void parse() throws IOException {
    try (Reader in = Files.newBufferedReader(COMPOSE)) {
      compose = new Yaml().load(in);
    }
    services = (Map<String, Map<String, Object>>) compose.get("services");
  }

  @Test
  @DisplayName("it parses and has the three services: qdrant, ingest and rag-retrieval")
  void threeServices() {
    assertThat(services).containsOnlyKeys("qdrant", "ingest", "rag-retrieval");
  }

  @Test
  @DisplayName("every image pulled from a registry is pinned to a version (Qdrant to v1.18.x), none is 'latest'")
  void imagesPinned() {
    services.forEach((name, service) -> {
      String image = String.valueOf(service.get("image"));
      assertThat(image).as(name).doesNotEndWith(":latest").contains(":");
      if (!service.containsKey("build")) {
        assertThat(image).as("%s is pulled, so it needs a version tag", name).matches("[a-z0-9./_-]+:v?\\d+\\.\\d+\\.\\d+");
      }
    });
    assertThat(services.get("qdrant").get("image")).asString().matches("qdrant/qdrant:v1\\.18\\.\\d+");
  }

  @Test
  @DisplayName("Qdrant keeps its data in a named volume that the file declares")
  @SuppressWarnings("unchecked")
  void qdrantVolume() {
    List<String> mounts = (List<String>) services.get("qdrant").get("volumes");
    assertThat(mounts).contains("qdrant-storage:/qdrant/storage");
    assertThat((Map<String, Object>) compose.get("volumes")).containsKey("qdrant-storage");
  }

  @Test
  @DisplayName("every environment variable it sets is one the service reads, and both services point at the qdrant service")
  @SuppressWarnings("unchecked")
  void realVariables() {
    for (String name : List.of("ingest", "rag-retrieval")) {
      Map<String, Object> env = (Map<String, Object>) services.get(name).get("environment");
      assertThat(env.keySet()).as(name).isNotEmpty().isSubsetOf(ConfigLoader.environmentVariables());
      assertThat(env).as(name).containsEntry("QDRANT_HOST", "qdrant").containsEntry("QDRANT_GRPC_PORT", "6334");
      assertThat((List<String>) services.get(name).get("depends_on")).as(name).contains("qdrant");
    }
  }

  @Test
  @DisplayName("the ingest runs the jar's ingest verb on the sample book folder, mounted read-only from the repository")
  @SuppressWarnings("unchecked")
  void ingestsTheSampleBook() throws IOException {
    Map<String, Object> ingest = services.get("ingest");
    List<String> command = (List<String>) ingest.get("command");
    assertThat(command.get(0)).isEqualTo("ingest");
    String mount = ((List<String>) ingest.get("volumes")).get(0);
    String[] parts = mount.split(":");
    assertThat(parts[1]).isEqualTo(command.get(1));
    assertThat(parts).hasSize(3).endsWith("ro");
    try (Stream<Path> files = Files.walk(Path.of(parts[0]))) {
      assertThat(files.filter(f -> f.toString().endsWith(".md"))).isNotEmpty();
    }
    assertThat(services.get("ingest").get("image")).isEqualTo(services.get("rag-retrieval").get("image"));
  }

  @Test
  @DisplayName("the service publishes port 8080 and the README shows docker compose up")
  @SuppressWarnings("unchecked")
  void publishedAndDocumented() throws IOException {
    assertThat((List<String>) services.get("rag-retrieval").get("ports")).contains("8080:8080");
    assertThat(Files.readString(Path.of("README.md"))).contains("docker compose up");
  }
}
