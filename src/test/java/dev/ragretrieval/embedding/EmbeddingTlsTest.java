package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigException;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * https to the embedding endpoint, as to the real Cohere: the settings an operator sets go through
 * ConfigLoader into a provider that talks to a server with a certificate for localhost. The server
 * is self-signed, so it is trusted through EMBEDDING_CA_CERT, as a self-hosted endpoint behind a
 * private CA would be.
 */
@ExtendWith(VertxExtension.class)
@DisplayName("Embedding over https: trusted CA, host-name verification, untrusted certificates refused")
class EmbeddingTlsTest {

  private static final String KEY = "tls-cohere-key";
  private static final int DIM = 8;

  private CohereTestServer server;
  private EmbeddingProvider provider;
  private Path caFile;

  @BeforeEach
  void start(Vertx vertx, @TempDir Path dir) throws IOException {
    server = await(CohereTestServer.startTls(vertx, KEY, DIM));
    caFile = Files.writeString(dir.resolve("embedding-ca.pem"), server.certificatePem());
  }

  @AfterEach
  void stop() {
    if (provider != null) {
      await(provider.close());
    }
    await(server.stop());
  }

  private EmbeddingProvider provider(Vertx vertx, String provider, String baseUrl, Path ca) {
    Map<String, String> env = new HashMap<>(Map.of("EMBEDDING_PROVIDER", provider));
    if (provider.equals("cohere")) {
      env.putAll(Map.of("COHERE_API_KEY", KEY, "COHERE_BASE_URL", baseUrl, "COHERE_EMBED_DIMENSION", String.valueOf(DIM)));
    } else {
      env.putAll(Map.of("OPENAI_API_KEY", KEY, "OPENAI_BASE_URL", baseUrl, "OPENAI_EMBED_DIMENSIONS", String.valueOf(DIM)));
    }
    if (ca != null) {
      env.put("EMBEDDING_CA_CERT", ca.toString());
    }
    AppConfig config = ConfigLoader.fromJson(new JsonObject().put("embedding", new JsonObject().put("max_attempts", 1)), env);
    this.provider = EmbeddingProviders.create(vertx, config.embedding(), dev.ragretrieval.observability.RagMetrics.detached());
    return this.provider;
  }

  private static List<float[]> embed(EmbeddingProvider provider, String text) {
    return await(provider.embed(List.of(text), InputType.SEARCH_QUERY, Deadline.in(java.time.Duration.ofMillis(10_000))));
  }

  private static ServiceException failure(EmbeddingProvider provider) {
    try {
      embed(provider, "never");
    } catch (AssertionError expected) {
      return (ServiceException) expected.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  @DisplayName("Cohere and an OpenAI-compatible endpoint answer over https when their CA is trusted")
  void trustedCa(Vertx vertx) {
    assertThat(server.baseUrl()).startsWith("https://localhost:");
    assertThat(embed(provider(vertx, "cohere", server.baseUrl(), caFile), "what is a node").get(0))
        .containsExactly(CohereTestServer.vectorFor("what is a node", DIM));
    await(provider.close());
    assertThat(embed(provider(vertx, "openai", server.baseUrl(), caFile), "what is a topic").get(0))
        .containsExactly(CohereTestServer.vectorFor("what is a topic", DIM));
    assertThat(server.callCount()).isEqualTo(2);
  }

  @Test
  @DisplayName("without the CA the certificate is not trusted: CONNECTION_ERROR, nothing reaches the server")
  void untrusted(Vertx vertx) {
    ServiceException error = failure(provider(vertx, "cohere", server.baseUrl(), null));
    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(error.getMessage()).doesNotContain(KEY);
    assertThat(server.callCount()).isZero();
  }

  @Test
  @DisplayName("a host name the certificate does not name is refused even with the CA trusted")
  void hostNameVerified(Vertx vertx) {
    String byAddress = "https://127.0.0.1:" + server.port();
    ServiceException error = failure(provider(vertx, "cohere", byAddress, caFile));
    assertThat(error.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(server.callCount()).isZero();
  }

  @Test
  @DisplayName("an unreadable EMBEDDING_CA_CERT stops start-up with one line")
  void unreadableCa() {
    assertThatThrownBy(() -> ConfigLoader.fromJson(new JsonObject(),
        Map.of("EMBEDDING_CA_CERT", "/nonexistent/ca.pem", "COHERE_API_KEY", KEY)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("EMBEDDING_CA_CERT '/nonexistent/ca.pem' is not a readable file");
  }
}
