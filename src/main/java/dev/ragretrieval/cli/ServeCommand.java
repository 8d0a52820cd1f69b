package dev.ragretrieval.cli;

import dev.ragretrieval.app.Application;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.observability.Logging;
import dev.ragretrieval.observability.Observability;
import dev.ragretrieval.tracing.Tracing;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** Starts the HTTP service; it runs until SIGTERM. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Start the HTTP service (the default when no verb is given).")
public final class ServeCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

  private final CliEnvironment cli;

  public ServeCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    // tracing is the standard OTEL_* variables' business, known before the Vertx it goes into
    Observability observability = Observability.create(Tracing.fromEnvironment(cli.env()).install());
    Vertx vertx = observability.vertx();
    try {
      AppConfig config = Services.await(ConfigLoader.load(vertx, cli.env()), Duration.ofSeconds(30));
      Logging.configure(config.logging());
      Application app = Services.await(Application.start(vertx, config, observability.metrics(), observability.metricsHandler()),
          Services.STARTUP);
      app.installSignalHandler();
      String host = config.http().host().equals("0.0.0.0") ? "localhost" : config.http().host();
      app.notReadyReason().ifPresentOrElse(
          reason -> LOG.warn("rag-retrieval listening on http://{}:{}/ (not ready: {})", host, app.httpPort(), reason),
          () -> LOG.info("rag-retrieval ready on http://{}:{}/", host, app.httpPort()));
      cli.serving().set(true);
      return 0;
    } catch (RuntimeException e) {
      vertx.close();
      throw e;
    }
  }
}
