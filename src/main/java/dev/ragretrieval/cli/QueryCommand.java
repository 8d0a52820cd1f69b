package dev.ragretrieval.cli;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalRequest;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.retrieval.RetrievedChunk;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** One retrieval through the same pipeline as POST /v1/retrieve, without HTTP. */
@Command(name = "query", mixinStandardHelpOptions = true,
    description = "Search the collection and print the best chunks (the API's JSON with --json).")
public final class QueryCommand implements Callable<Integer> {

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

  @Spec
  CommandSpec spec;

  private final CliEnvironment cli;

  public QueryCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    try (Services services = Services.start(cli, true)) {
      RetrievalService service = new RetrievalService(services.embeddings(), services.store(), services.config);
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
      RetrievalRequest request = validated(service, body);
      RetrievalResult result = Services.await(
          service.retrieve(request, UUID.randomUUID().toString(), deadline(services)), Duration.ofMinutes(2));
      if (json) {
        cli.out().println(ResultJson.result(result).encodePrettily());
      } else {
        print(result);
      }
      return 0;
    }
  }

  /** A blank question or an out-of-range option is a usage error (exit 2), as picocli's own checks are. */
  private RetrievalRequest validated(RetrievalService service, JsonObject body) {
    try {
      return Services.await(service.validate(body), Duration.ofSeconds(5));
    } catch (ServiceException e) {
      if (e.code().httpStatus() == 400) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
      throw e;
    }
  }

  private static Deadline deadline(Services services) {
    // the first local-model call may be slower than an HTTP request's budget
    long millis = Math.max(services.config.http().requestTimeout().toMillis(), 60_000);
    return Deadline.in(java.time.Duration.ofMillis(millis));
  }

  private void print(RetrievalResult result) {
    if (result.results().isEmpty()) {
      cli.out().println("no results");
    }
    for (RetrievedChunk chunk : result.results()) {
      String where = chunk.pageTitle() == null ? "" : chunk.pageTitle();
      if (chunk.section() != null) {
        where += (where.isEmpty() ? "" : " > ") + chunk.section();
      }
      cli.out().printf(Locale.ROOT, "%d. [%.3f] %s%n", chunk.rank(), chunk.score(), where);
      if (chunk.sourceUrl() != null) {
        cli.out().println("   " + chunk.sourceUrl() + (chunk.chapter() == null ? "" : "  (" + chunk.chapter() + ")"));
      }
      cli.out().println("   " + snippet(chunk.text()));
      cli.out().println();
    }
    cli.out().printf(Locale.ROOT, "%d result(s) from '%s' in %.0f ms (embed %.0f ms, search %.0f ms)%n",
        result.count(), result.collection(), result.executionTimeMs(), result.embedMs(), result.searchMs());
  }

  static String snippet(String text) {
    if (text == null) {
      return "";
    }
    String flat = text.replaceAll("\\s+", " ").strip();
    return flat.length() <= 240 ? flat : flat.substring(0, 237) + "...";
  }
}
