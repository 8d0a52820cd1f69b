package dev.ragretrieval.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs a fresh embedding test server (Cohere and OpenAI shapes) around each test of a subclass. */
@ExtendWith(VertxExtension.class)
abstract class EmbeddingServerFixture {

  private final String apiKey;
  private final int serverDimension;

  protected CohereTestServer server;

  protected EmbeddingServerFixture(String apiKey, int serverDimension) {
    this.apiKey = apiKey;
    this.serverDimension = serverDimension;
  }

  @BeforeEach
  void startServer(Vertx vertx, VertxTestContext test) {
    CohereTestServer.start(vertx, apiKey, serverDimension).onComplete(test.succeeding(started -> {
      server = started;
      test.completeNow();
    }));
  }

  @AfterEach
  void stopServer(VertxTestContext test) {
    server.stop().onComplete(test.succeedingThenComplete());
  }

  /** Completes {@code test} once the failure is a ServiceException that passes {@code check}. */
  static Handler<Throwable> serviceError(VertxTestContext test, Consumer<ServiceException> check) {
    return failure -> test.verify(() -> {
      assertThat(failure).isInstanceOf(ServiceException.class);
      check.accept((ServiceException) failure);
      test.completeNow();
    });
  }
}
