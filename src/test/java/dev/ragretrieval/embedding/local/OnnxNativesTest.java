package dev.ragretrieval.embedding.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OnnxNativesTest {

  @Test
  @DisplayName("a process that ran the local model leaves nothing in its temp directory (ONNX Runtime's own"
      + " loading left an empty onnxruntime-java* folder each time)")
  void nothingLeftInTemp(@TempDir Path temp) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process child = new ProcessBuilder(java, "-Djava.io.tmpdir=" + temp, "-cp", System.getProperty("java.class.path"),
        Child.class.getName())
        .redirectErrorStream(true).start();
    String output = new String(child.getInputStream().readAllBytes());
    assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as(output).isZero();
    assertThat(output).contains("384 dimensions");
    try (Stream<Path> left = Files.list(temp)) {
      assertThat(left.map(path -> path.getFileName().toString())).isEmpty();
    }
  }

  @Test
  @DisplayName("the platform folder names match the ones inside ONNX Runtime's jar")
  void platforms() {
    String platform = OnnxNatives.platform();
    assertThat(platform).isIn("linux-x64", "linux-aarch64", "osx-x64", "osx-aarch64");
    assertThat(OnnxNatives.class.getResource("/ai/onnxruntime/native/" + platform + "/"
        + System.mapLibraryName("onnxruntime4j_jni").replace(".jnilib", ".dylib"))).isNotNull();
  }

  /** Runs the model once, as a start of the embedded default does. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      List<float[]> vectors = BgeBatchEncoder.shared().embed(List.of("zero moment point"));
      System.out.println(vectors.get(0).length + " dimensions");
    }
  }
}
