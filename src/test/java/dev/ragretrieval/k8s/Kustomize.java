package dev.ragretrieval.k8s;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Renders a kustomization the way {@code kubectl apply -k} would: with kubectl's built-in kustomize,
 * else a standalone {@code kustomize} on PATH or in the Go bin folder (.ci/run installs one there).
 */
final class Kustomize {

  private Kustomize() {}

  /** The command prefix that renders a folder, or empty when neither tool is installed. */
  static Optional<List<String>> find() {
    List<Path> dirs = new ArrayList<>();
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isBlank()) {
        dirs.add(Path.of(dir));
      }
    }
    String gopath = System.getenv("GOPATH");
    if (gopath != null && !gopath.isBlank()) {
      dirs.add(Path.of(gopath, "bin"));
    }
    dirs.add(Path.of(System.getProperty("user.home"), "go", "bin"));

    Optional<Path> kubectl = executable(dirs, "kubectl");
    if (kubectl.isPresent()) {
      return Optional.of(List.of(kubectl.get().toString(), "kustomize"));
    }
    return executable(dirs, "kustomize").map(kustomize -> List.of(kustomize.toString(), "build"));
  }

  /** Skips the calling test when no renderer is installed, unless CI says these tests are required. */
  static List<String> assumeInstalled() {
    Optional<List<String>> command = find();
    String hint = "install kubectl, or: go install sigs.k8s.io/kustomize/kustomize/v5@v5.5.0";
    if (command.isEmpty() && "required".equalsIgnoreCase(System.getenv("RAG_KUSTOMIZE_TESTS"))) {
      fail("RAG_KUSTOMIZE_TESTS=required but neither kubectl nor kustomize is on PATH or in ~/go/bin (" + hint + ")");
    }
    assumeTrue(command.isPresent(), "neither kubectl nor kustomize is installed (" + hint + ")");
    return command.get();
  }

  /** The multi-document YAML that the kustomization in {@code dir} renders to. */
  static String render(List<String> command, Path dir) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>(command);
    full.add(dir.toString());
    Path errors = Files.createTempFile("kustomize", ".err");
    try {
      Process process = new ProcessBuilder(full).redirectError(errors.toFile()).start();
      process.getOutputStream().close();
      // read before waiting: the output is larger than a pipe buffer
      String yaml = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        fail(String.join(" ", full) + " did not finish within 60 s");
      }
      if (process.exitValue() != 0) {
        fail(String.join(" ", full) + " exited with " + process.exitValue() + ": " + Files.readString(errors));
      }
      return yaml;
    } finally {
      Files.deleteIfExists(errors);
    }
  }

  private static Optional<Path> executable(List<Path> dirs, String name) {
    return dirs.stream().map(dir -> dir.resolve(name)).filter(Files::isExecutable).findFirst();
  }
}
