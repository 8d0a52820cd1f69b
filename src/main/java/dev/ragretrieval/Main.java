package dev.ragretrieval;

import dev.ragretrieval.cli.CliEnvironment;
import dev.ragretrieval.cli.EvalCommand;
import dev.ragretrieval.cli.IngestCommand;
import dev.ragretrieval.cli.QueryCommand;
import dev.ragretrieval.cli.RootCommand;
import dev.ragretrieval.cli.ServeCommand;
import dev.ragretrieval.config.ConfigException;
import dev.ragretrieval.error.ServiceException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;

/**
 * {@code java -jar rag-retrieval.jar [serve|ingest|query|eval] ...}. Exit status: 0 success,
 * 1 failure, 2 usage error, always with a one-line reason on stderr and never a stack trace.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    CliEnvironment cli = CliEnvironment.system();
    int code = run(cli, args);
    if (code != 0 || !cli.serving().get()) {
      System.exit(code);
    }
    // serving: the event loops keep the process alive until SIGTERM
  }

  /** Runs one command line in-process (tests call this directly). */
  public static int run(CliEnvironment cli, String... args) {
    return commandLine(cli).execute(args);
  }

  public static CommandLine commandLine(CliEnvironment cli) {
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> type) throws Exception {
        if (type == RootCommand.class) {
          return type.cast(new RootCommand(cli));
        }
        if (type == ServeCommand.class) {
          return type.cast(new ServeCommand(cli));
        }
        if (type == IngestCommand.class) {
          return type.cast(new IngestCommand(cli));
        }
        if (type == QueryCommand.class) {
          return type.cast(new QueryCommand(cli));
        }
        if (type == EvalCommand.class) {
          return type.cast(new EvalCommand(cli));
        }
        return CommandLine.defaultFactory().create(type);
      }
    };
    CommandLine commandLine = new CommandLine(RootCommand.class, factory);
    commandLine.setOut(cli.out());
    commandLine.setErr(cli.err());
    commandLine.setParameterExceptionHandler((error, args) -> {
      PrintWriter err = error.getCommandLine().getErr();
      err.println("error: " + oneLine(error.getMessage()) + " (see '"
          + error.getCommandLine().getCommandSpec().qualifiedName() + " --help')");
      err.flush();
      return 2;
    });
    commandLine.setExecutionExceptionHandler((error, cmd, parsed) -> {
      cmd.getErr().println("error: " + reason(error));
      cmd.getErr().flush();
      return 1;
    });
    return commandLine;
  }

  /** A failure as one line a user can act on: no class names, no stack traces. */
  static String reason(Exception error) {
    Throwable cause = error;
    while (cause.getCause() != null && !(cause instanceof ServiceException) && !(cause instanceof ConfigException)
        && !(cause instanceof NoSuchFileException)) {
      cause = cause.getCause();
    }
    if (cause instanceof ServiceException || cause instanceof ConfigException) {
      return oneLine(cause.getMessage());
    }
    if (cause instanceof NoSuchFileException missing) {
      return "no such file: " + missing.getFile();
    }
    String message = cause.getMessage();
    return message == null || message.isBlank() ? "unexpected failure" : "unexpected failure: " + oneLine(message);
  }

  private static String oneLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return (newline < 0 ? message : message.substring(0, newline)).strip();
  }
}
