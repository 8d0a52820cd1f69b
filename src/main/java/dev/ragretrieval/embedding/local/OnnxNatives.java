package dev.ragretrieval.embedding.local;

import ai.onnxruntime.OrtEnvironment;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads ONNX Runtime's native libraries from a temporary folder that is removed again as soon as
 * they are loaded. ONNX Runtime (1.20) copies them into a folder of its own and has the JVM delete
 * the files and the folder at exit, the folder first, while it still holds them: every start left
 * an {@code onnxruntime-java*} folder in the temp directory (hundreds after a test run). Given the
 * libraries' folder ({@code onnxruntime.native.path}), it copies nothing there, and its empty
 * folder goes at exit. A path set by the user is left alone, as are platforms whose libraries the
 * jar lacks.
 */
final class OnnxNatives {

  private static final String PATH_PROPERTY = "onnxruntime.native.path";
  private static final List<String> LIBRARIES = List.of("onnxruntime", "onnxruntime4j_jni");

  private static boolean loaded;

  private OnnxNatives() {}

  /** Loads the libraries (once; blocking: file I/O). */
  static synchronized void load() {
    if (loaded) {
      return;
    }
    loaded = true;
    String platform = platform();
    if (System.getProperty(PATH_PROPERTY) != null || platform == null) {
      return;
    }
    List<Path> written = new ArrayList<>();
    Path folder = null;
    try {
      folder = Files.createTempDirectory("rag-onnxruntime");
      for (String library : LIBRARIES) {
        String file = System.mapLibraryName(library).replace(".jnilib", ".dylib");
        try (InputStream in = OnnxNatives.class.getResourceAsStream("/ai/onnxruntime/native/" + platform + "/" + file)) {
          if (in == null) {
            return; // not in this jar: ONNX Runtime looks for it its own way
          }
          Path target = folder.resolve(file);
          Files.copy(in, target);
          written.add(target);
        }
      }
      System.setProperty(PATH_PROPERTY, folder.toString());
      OrtEnvironment.getEnvironment(); // loads both libraries now, while their files exist
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack ONNX Runtime's native libraries", e);
    } finally {
      // a loaded library stays mapped after its file is removed (Linux, macOS)
      written.forEach(OnnxNatives::delete);
      if (folder != null) {
        delete(folder);
      }
    }
  }

  /** ONNX Runtime's name for this platform's folder of libraries, or null where it has none. */
  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String osPart = os.contains("linux") ? "linux" : os.contains("mac") ? "osx" : null;
    String archPart = arch.equals("amd64") || arch.equals("x86_64") ? "x64"
        : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : null;
    return osPart == null || archPart == null ? null : osPart + "-" + archPart;
  }

  private static void delete(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      path.toFile().deleteOnExit();
    }
  }
}
