package dev.ragretrieval.cli;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.eval.EvalCase;
import dev.ragretrieval.eval.EvalReport;
import dev.ragretrieval.eval.Evaluator;
import dev.ragretrieval.retrieval.RetrievalService;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Runs a file of questions with their expected source, and reports hit@k. */
@Command(name = "eval", mixinStandardHelpOptions = true,
    description = "Run the questions of a JSON/JSONL file of {\"query\": ..., \"expected\": <source_url or section>}"
        + " and report hit@k; exit 1 when accuracy is below --min-accuracy.")
public final class EvalCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<file>", description = "JSON array or JSON lines")
  Path file;

  @Option(names = "--min-accuracy", paramLabel = "X", description = "least hit@k (0..1) to pass, default 0")
  double minAccuracy;

  @Option(names = {"--top-k", "-k"}, paramLabel = "N", defaultValue = "5", description = "k of hit@k (default 5)")
  int topK;

  @Option(names = "--collection", paramLabel = "C", description = "collection to search (default: QDRANT_COLLECTION)")
  String collection;

  @Spec
  CommandSpec spec;

  private final CliEnvironment cli;

  public EvalCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    if (minAccuracy < 0 || minAccuracy > 1) {
      throw new ParameterException(spec.commandLine(), "--min-accuracy must be within 0..1");
    }
    List<EvalCase> cases;
    try {
      cases = EvalCase.parse(Files.readString(file));
    } catch (NoSuchFileException e) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "no such file: " + file);
    }
    try (Services services = Services.start(cli, true)) {
      RetrievalService service = new RetrievalService(services.embeddings(), services.store(), services.config);
      Evaluator evaluator = new Evaluator(service, topK, collection);
      EvalReport report = Services.await(evaluator.run(cases), Services.STARTUP);
      report.lines().forEach(cli.out()::println);
      cli.out().println(report.summary());
      if (report.accuracy() < minAccuracy) {
        cli.err().println(String.format(Locale.ROOT, "error: accuracy %.3f is below --min-accuracy %.3f",
            report.accuracy(), minAccuracy));
        return 1;
      }
      return 0;
    }
  }
}
