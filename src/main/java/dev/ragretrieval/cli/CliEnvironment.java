package dev.ragretrieval.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a command reads and writes besides its arguments: the environment (configuration), stdout
 * for results, stderr for progress and errors. Tests pass their own.
 */
public record CliEnvironment(Map<String, String> env, PrintWriter out, PrintWriter err, boolean terminal,
    AtomicBoolean serving) {

  public CliEnvironment(Map<String, String> env, PrintWriter out, PrintWriter err, boolean terminal) {
    this(Map.copyOf(env), out, err, terminal, new AtomicBoolean());
  }

  public static CliEnvironment system() {
    return new CliEnvironment(System.getenv(), new PrintWriter(System.out, true), new PrintWriter(System.err, true),
        System.console() != null);
  }
}
