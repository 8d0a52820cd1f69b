package dev.ragretrieval.cli;

import dev.ragretrieval.search.CollectionName;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.eval.EvalCase;
import dev.ragretrieval.eval.EvalReport;
import dev.ragretrieval.eval.Evaluator;
import dev.ragretrieval.eval.HttpRetriever;
import dev.ragretrieval.eval.InProcessRetriever;
import dev.ragretrieval.eval.ModeComparison;
import dev.ragretrieval.eval.Retriever;
import dev.ragretrieval.eval.TestResult;
import dev.ragretrieval.ingest.SampleBook;
import dev.ragretrieval.retrieval.RetrievalService;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Runs a file of Validation Tests (or the bundled {@code sample-book} set) in this process or
 * against a running service, prints the results and a per-category table, writes a JSON report,
 * and exits 1 when the run is below --min-accuracy or a test below its own success_criteria.
 */
@Command(name = "eval", mixinStandardHelpOptions = true,
    description = {"Run Validation Tests ({\"test_id\", \"query_text\", \"expected_results\", \"test_category\","
        + " \"success_criteria\"}; the older {\"query\", \"expected\"} too) from a JSON array or JSONL file,"
        + " and report hit@1, hit@k, MRR and nDCG@k per test and per category.",
        "<file> may be 'sample-book', the bundled questions about the sample book.",
        "--search-mode dense,hybrid runs the tests once per mode and prints the modes side by side.",
        "Exit 1 when hit@k is below --min-accuracy or a test misses its own success_criteria (in any mode)."})
public final class EvalCommand implements Callable<Integer> {

  /** Eval sets shipped in the jar, by short name. */
  static final Map<String, String> BUNDLED = Map.of("sample-book", "sample-book/eval.json");
  private static final Set<String> SEARCH_MODES = Set.of("dense", "hybrid");
  private static final Duration RUN_LIMIT = Duration.ofMinutes(30);

  @Parameters(index = "0", paramLabel = "<file>", description = "JSON array or JSON lines, or 'sample-book'")
  String file;

  @Option(names = "--min-accuracy", paramLabel = "X", description = "least hit@k over all tests (0..1), default 0")
  double minAccuracy;

  @Option(names = {"--top-k", "-k"}, paramLabel = "N", defaultValue = "5", description = "k of hit@k, MRR@k, nDCG@k (default 5)")
  int topK;

  @Option(names = "--collection", paramLabel = "C",
      description = "collection to evaluate (default: QDRANT_COLLECTION); need not be in QDRANT_COLLECTIONS")
  String collection;

  @Option(names = "--search-mode", paramLabel = "MODE[,MODE]", split = ",",
      description = "dense, hybrid, or a comma list (dense,hybrid) to run each and compare them;"
          + " sent as the request's search_mode (default: the service's choice)")
  List<String> searchModes;

  @Mixin
  ServerOptions server;

  @Option(names = {"--output", "-o"}, paramLabel = "FILE", description = "write the JSON report here")
  Path output;

  @Spec
  CommandSpec spec;

  private final CliEnvironment cli;

  public EvalCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    checkOptions();
    List<EvalCase> tests = EvalCase.parse(read(file));
    List<String> modes = modes();
    Evaluator.Options options = new Evaluator.Options(topK, collection, null);
    Duration limit = RUN_LIMIT.multipliedBy(modes.size());
    ModeComparison runs = server.remote()
        ? server.ask(cli, client -> ModeComparison.run(new HttpRetriever(client, 32), options, modes, tests), limit)
        : inProcess(tests, options, modes, limit);
    return finish(runs);
  }

  /** The modes to run, in the order given, each once; one null entry = the service's choice. */
  private List<String> modes() {
    if (searchModes == null || searchModes.isEmpty()) {
      return Collections.singletonList(null);
    }
    return List.copyOf(new LinkedHashSet<>(searchModes.stream().map(String::strip).toList()));
  }

  private void checkOptions() {
    if (minAccuracy < 0 || minAccuracy > 1) {
      throw usage("--min-accuracy must be within 0..1");
    }
    if (topK < 1 || topK > 100) {
      throw usage("--top-k must be within 1..100");
    }
    if (searchModes != null && (searchModes.isEmpty()
        || !searchModes.stream().map(String::strip).allMatch(SEARCH_MODES::contains))) {
      throw usage("--search-mode must be dense, hybrid, or a comma list of them (dense,hybrid)");
    }
    if (collection != null && !CollectionName.isValid(collection)) {
      throw usage("--collection must be a collection name: " + CollectionName.RULE);
    }
    server.check(spec);
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** A path, else a bundled set's short name. */
  static String read(String name) throws IOException {
    Path path = Path.of(name);
    if (!Files.exists(path) && BUNDLED.containsKey(name)) {
      try (InputStream in = EvalCommand.class.getClassLoader().getResourceAsStream(BUNDLED.get(name))) {
        if (in != null) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      }
    }
    try {
      return Files.readString(path);
    } catch (NoSuchFileException e) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "no such file: " + name
          + " (bundled sets: " + String.join(", ", BUNDLED.keySet()) + ")");
    }
  }

  private ModeComparison inProcess(List<EvalCase> tests, Evaluator.Options options, List<String> modes,
      Duration limit) {
    try (Services services = Services.start(withCollection(cli), false)) {
      String defaultCollection = services.config.qdrant().collection();
      // the sample book belongs to the default collection: load it only when that is the one evaluated
      if (collection == null || collection.equals(defaultCollection)) {
        Services.await(SampleBook.loadIfEmpty(services.vertx, services.config, services.store(),
            services.embeddings()::embed), Services.STARTUP).ifPresent(s -> cli.err().println(String.format(Locale.ROOT,
            "loaded sample book: %d pages, %d chunks in %.1fs", s.pages(), s.chunks(), s.seconds())));
      }
      RetrievalService service = new RetrievalService(services.embeddings(), services.store(), services.config);
      long timeout = Math.max(services.config.http().requestTimeout().toMillis(), Duration.ofMinutes(2).toMillis());
      Retriever retriever = new InProcessRetriever(service, services.config.retrieval().maxBatchQueries(), timeout);
      return Services.await(ModeComparison.run(retriever, options, modes, tests), limit);
    }
  }

  /** The named collection is one this run may search, whether or not the service is configured for it. */
  private CliEnvironment withCollection(CliEnvironment base) {
    if (collection == null) {
      return base;
    }
    Map<String, String> env = new HashMap<>(base.env());
    String others = blankToNull(env.get("QDRANT_COLLECTIONS"));
    env.put("QDRANT_COLLECTIONS", others == null ? collection : others + "," + collection);
    return new CliEnvironment(env, base.out(), base.err(), base.terminal(), base.serving());
  }

  private int finish(ModeComparison runs) throws IOException {
    List<EvalReport> reports = runs.reports();
    boolean several = reports.size() > 1;
    for (EvalReport report : reports) {
      if (report.results().stream().allMatch(r -> r.error() != null)) {
        // nothing was answered (no such collection, ...): that is the failure, not a score of 0
        JsonObject first = report.results().get(0).error();
        throw new ServiceException(ErrorCode.fromWire(first.getString("code")),
            (several ? ModeComparison.label(report) + ": " : "") + first.getString("message", "every test failed"));
      }
    }
    if (several) {
      cli.out().println(runs.header());
      runs.lines().forEach(cli.out()::println);
      cli.out().println();
      runs.table().forEach(cli.out()::println);
      cli.out().println();
      runs.summaries().forEach(cli.out()::println);
    } else {
      EvalReport report = reports.get(0);
      cli.out().println(report.header());
      report.lines().forEach(cli.out()::println);
      cli.out().println();
      report.table().forEach(cli.out()::println);
      cli.out().println();
      cli.out().println(report.summary());
    }
    if (output != null) {
      Files.writeString(output, (several ? runs.toJson() : reports.get(0).toJson()).encodePrettily() + "\n");
      cli.err().println("report written to " + output);
    }
    List<String> reasons = new ArrayList<>();
    for (EvalReport report : reports) {
      String mode = several ? " in " + ModeComparison.label(report) : "";
      if (report.accuracy() < minAccuracy) {
        reasons.add(String.format(Locale.ROOT, "accuracy (hit@%d) %.3f%s is below --min-accuracy %.3f", topK,
            report.accuracy(), mode, minAccuracy));
      }
      List<TestResult> below = report.belowCriteria();
      if (!below.isEmpty()) {
        reasons.add(below.size() + " test(s) below their success_criteria or failed" + mode + ": "
            + below.stream().map(r -> r.test().testId()).limit(10).collect(Collectors.joining(", "))
            + (below.size() > 10 ? ", ..." : ""));
      }
    }
    if (!reasons.isEmpty()) {
      cli.err().println("error: " + String.join("; ", reasons));
      return 1;
    }
    return 0;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
