package dev.ragretrieval.http;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

@ExtendWith(VertxExtension.class)
class InternalErrorTest {

  @Test
  @DisplayName("a bug of ours answers 500 INTERNAL without class names, logged once at ERROR with the request id and stack trace")
  void bugAnswersInternal(Vertx vertx) {
    RagMetrics metrics = RagMetrics.detached();
    Router router = Router.router(vertx);
    router.get("/boom").handler(ctx -> {
      Exchange exchange = Exchange.of(ctx, metrics).requestId("req-42");
      // a bug deep in an adapter, mapped by the seam as every unmapped failure is
      exchange.fail(ServiceException.from(new NullPointerException("field x of Foo is null")));
    });
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(captured);
    HttpServer server = await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1"));
    try {
      HttpResponse<Buffer> response = await(WebClient.create(vertx).get(server.actualPort(), "127.0.0.1", "/boom").send());

      assertThat(response.statusCode()).isEqualTo(500);
      assertThat(response.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("INTERNAL");
      assertThat(response.bodyAsString()).doesNotContain("NullPointer").doesNotContain("Foo");
      assertThat(captured.list).filteredOn(e -> e.getLevel() == Level.ERROR).singleElement().satisfies(e -> {
        assertThat(e.getFormattedMessage()).contains("req-42");
        assertThat(e.getThrowableProxy().getClassName()).isEqualTo(NullPointerException.class.getName());
      });
    } finally {
      root.detachAppender(captured);
      await(server.close());
    }
  }
}
