package dev.ragretrieval.cli;

import dev.ragretrieval.client.RetrievalClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --url} and {@code --api-key} of the commands that may ask a running server instead of the store here. */
final class ServerOptions {

  /** Each call's limit: the first answer of a cold server may take a local model's start-up. */
  static final Duration CALL_TIMEOUT = Duration.ofMinutes(2);

  @Option(names = "--url", paramLabel = "URL",
      description = "ask a running server (e.g. http://localhost:8080) instead of opening the store here")
  String url;

  @Option(names = "--api-key", paramLabel = "KEY",
      description = "API key for --url (default: the RAG_API_KEY environment variable)")
  String apiKey;

  boolean remote() {
    return url != null;
  }

  /** A URL that is not http(s), or a key without a URL, is a usage error. */
  void check(CommandSpec spec) {
    if (url != null && !RetrievalClient.isHttpUrl(url)) {
      throw new ParameterException(spec.commandLine(), "--url must be an http(s) URL such as http://localhost:8080");
    }
    if (apiKey != null && url == null) {
      throw new ParameterException(spec.commandLine(), "--api-key needs --url");
    }
  }

  /** {@code call}'s answer from the server, on a Vert.x of its own that is closed after. */
  <T> T ask(CliEnvironment cli, Function<RetrievalClient, Future<T>> call, Duration limit) {
    String key = apiKey != null ? apiKey : cli.env().get("RAG_API_KEY");
    Vertx vertx = Vertx.vertx();
    try (RetrievalClient client = new RetrievalClient(vertx, url, key, CALL_TIMEOUT)) {
      return Services.await(call.apply(client), limit);
    } finally {
      Services.await(vertx.close(), Duration.ofSeconds(30));
    }
  }
}
