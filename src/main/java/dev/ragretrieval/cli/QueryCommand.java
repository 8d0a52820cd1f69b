package dev.ragretrieval.cli;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.retrieval.RequestParser;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalRequest;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * One retrieval through the same pipeline as POST /v1/retrieve, without HTTP (the embedded store
 * opened read-only, so a running server may share it), or with {@code --url} through a server.
 */
@Command(name = "query", mixinStandardHelpOptions = true,
    description = "Search the collection and print the best chunks (the API's JSON with --json)."
        + " Runs beside a server on the same RAG_DATA_DIR, or asks a server with --url.")
public final class QueryCommand implements Callable<Integer> {

  /** The request's field names as this command's options, for messages a CLI user can act on. */
  static final Map<String, String> OPTION_NAMES = Map.of(
      "top_k", "-k/--top-k", "k", "-k/--top-k",
      "score_threshold", "--score-threshold", "similarity_threshold", "--score-threshold",
      "collection", "--collection", "query", "<text>");

  @Parameters(index = "0", paramLabel = "<text>", description = "the question")
  String text;

  @Option(names = {"--top-k", "-k"}, paramLabel = "N", description = "how many results (default from config)")
  Integer topK;

  @Option(names = "--score-threshold", paramLabel = "X", description = "minimum cosine similarity, 0..1")
  Double threshold;

  @Option(names = "--collection", paramLabel = "C", description = "collection to search (default: QDRANT_COLLECTION)")
  String collection;

  @Option(names = "--json", description = "print the API's JSON response")
  boolean json;

  @Mixin
  ServerOptions server;

  @Spec
  CommandSpec spec;

  private final CliEnvironment cli;

  public QueryCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    server.check(spec);
    JsonObject body = new JsonObject().put("query", text);
    if (topK != null) {
      body.put("top_k", topK);
    }
    if (threshold != null) {
      body.put("score_threshold", threshold);
    }
    if (collection != null) {
      body.put("collection", collection);
    }
    JsonObject answer = server.remote()
        ? usage(() -> server.ask(cli, client -> client.retrieve(body), ServerOptions.CALL_TIMEOUT.plusSeconds(10)))
        : local(body);
    if (json) {
      cli.out().println(answer.encodePrettily());
    } else {
      print(answer);
    }
    return 0;
  }

  private JsonObject local(JsonObject body) {
    AtomicReference<RetrievalRequest> request = new AtomicReference<>();
    // checked as soon as the settings are read: a usage error does not wait for the local model and
    // the sample book (about 10 s on a first run), nor print their progress before its one line
    UnaryOperator<AppConfig> check = config -> {
      request.set(usage(() -> new RequestParser(config.retrieval(), config.qdrant()).parse(body)));
      return config;
    };
    try (Services services = Services.startReadOnly(cli, check)) {
      RetrievalService service = new RetrievalService(services.embeddings(), services.store(), services.config);
      return ResultJson.result(Services.await(
          service.retrieve(request.get(), UUID.randomUUID().toString(), deadline(services)), Duration.ofMinutes(2)));
    }
  }

  /** A blank question or an out-of-range option is a usage error (exit 2), named as the option it came from. */
  private <T> T usage(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (ServiceException e) {
      if (e.code().httpStatus() == 400) {
        throw new ParameterException(spec.commandLine(), optionNames(e.getMessage()));
      }
      throw e;
    }
  }

  /** "'top_k' must be between 1 and 100" -> "-k/--top-k must be between 1 and 100". */
  static String optionNames(String message) {
    String out = message;
    for (Map.Entry<String, String> e : OPTION_NAMES.entrySet()) {
      out = out.replace("'" + e.getKey() + "'", e.getValue());
    }
    return out;
  }

  private static Deadline deadline(Services services) {
    // the first local-model call may be slower than an HTTP request's budget
    long millis = Math.max(services.config.http().requestTimeout().toMillis(), 60_000);
    return Deadline.in(Duration.ofMillis(millis));
  }

  private void print(JsonObject result) {
    JsonArray results = result.getJsonArray("results", new JsonArray());
    if (results.isEmpty()) {
      cli.out().println("no results");
    }
    for (int i = 0; i < results.size(); i++) {
      JsonObject chunk = results.getJsonObject(i);
      String where = chunk.getString("page_title", "");
      if (chunk.getString("section") != null) {
        where += (where.isEmpty() ? "" : " > ") + chunk.getString("section");
      }
      cli.out().printf(Locale.ROOT, "%d. [%.3f] %s%n", chunk.getInteger("rank", i + 1),
          chunk.getDouble("score", 0.0), where);
      if (chunk.getString("source_url") != null) {
        String chapter = chunk.getString("chapter");
        cli.out().println("   " + chunk.getString("source_url") + (chapter == null ? "" : "  (" + chapter + ")"));
      }
      cli.out().println("   " + snippet(chunk.getString("text")));
      cli.out().println();
    }
    JsonObject timings = result.getJsonObject("timings_ms", new JsonObject());
    cli.out().printf(Locale.ROOT, "%d result(s) from '%s' in %.0f ms (embed %.0f ms, search %.0f ms)%n",
        result.getInteger("count", results.size()), result.getString("collection"),
        result.getDouble("execution_time_ms", 0.0), timings.getDouble("embed", 0.0), timings.getDouble("search", 0.0));
  }

  static String snippet(String text) {
    if (text == null) {
      return "";
    }
    String flat = text.replaceAll("\\s+", " ").strip();
    return flat.length() <= 240 ? flat : flat.substring(0, 237) + "...";
  }
}
