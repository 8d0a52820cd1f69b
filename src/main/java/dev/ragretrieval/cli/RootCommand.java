package dev.ragretrieval.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code rag-retrieval [verb]}: with no verb it serves, as {@code java -jar} users expect. */
@Command(name = "rag-retrieval", mixinStandardHelpOptions = true, version = "rag-retrieval 0.1.0",
    description = "Retrieval service for RAG chatbots: semantic search over an ingested book.",
    subcommands = {ServeCommand.class, IngestCommand.class, QueryCommand.class, EvalCommand.class},
    footer = {"", "Exit status: 0 success, 1 failure, 2 usage error."})
public final class RootCommand implements Callable<Integer> {

  private final CliEnvironment cli;

  public RootCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    return new ServeCommand(cli).call();
  }
}
