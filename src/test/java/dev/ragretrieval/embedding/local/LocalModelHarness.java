package dev.ragretrieval.embedding.local;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Not a test: a main that times the local model, wall ms per call and process CPU ms per text (ONNX
 * Runtime's threads are native, so the whole process is counted), for 1, 8 and 32 questions per
 * call, against langchain4j's {@code embedAll} (one session run per text, ONNX Runtime's defaults).
 *
 * <pre>java -cp target/classes:target/test-classes:$(deps) dev.ragretrieval.embedding.local.LocalModelHarness [seconds]</pre>
 */
public final class LocalModelHarness {

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private interface Embedder {
    void embed(List<String> texts) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
    List<String> questions = questions(64);
    System.out.printf("%d cores; %.0f s per line%n", Runtime.getRuntime().availableProcessors(), seconds);

    EmbeddingModel langchain4j = new BgeSmallEnV15QuantizedEmbeddingModel(Runnable::run);
    for (int batch : new int[] {1, 8, 32}) {
      measure("langchain4j embedAll", batch, questions, seconds,
          texts -> langchain4j.embedAll(texts.stream().map(TextSegment::from).toList()));
    }
    int[][] variants = {{1, 1}, {2, 1}, {1, 32}, {2, 32}}; // intra-op threads, rows per run
    for (int[] variant : variants) {
      BgeBatchEncoder encoder = new BgeBatchEncoder(BgeBatchEncoder.sessionOptions(variant[0]), variant[1]);
      for (int batch : new int[] {1, 8, 32}) {
        measure("%d thread(s), %2d row(s) per run".formatted(variant[0], variant[1]), batch, questions, seconds,
            encoder::embed);
      }
    }
    // what the provider does under load: two batches at once, each run on one ONNX Runtime thread
    BgeBatchEncoder exact = new BgeBatchEncoder(BgeBatchEncoder.sessionOptions(1), BgeBatchEncoder.EXACT);
    ExecutorService two = Executors.newFixedThreadPool(2);
    for (int batch : new int[] {2, 8, 32}) {
      measure("1 thread,   1 row per run, 2 runs at once", batch, questions, seconds, texts -> {
        int half = texts.size() / 2;
        Future<?> first = two.submit(() -> exact.embed(texts.subList(0, half)));
        exact.embed(texts.subList(half, texts.size()));
        first.get();
      });
    }
    two.shutdown();
  }

  private static void measure(String what, int batch, List<String> questions, double seconds, Embedder embedder)
      throws Exception {
    for (int i = 0; i < 3; i++) {
      embedder.embed(questions.subList(0, batch)); // warm-up
    }
    long cpuStart = OS.getProcessCpuTime();
    long start = System.nanoTime();
    int runs = 0;
    int texts = 0;
    while (System.nanoTime() - start < seconds * 1e9) {
      int from = (runs * batch) % (questions.size() - batch + 1);
      embedder.embed(questions.subList(from, from + batch));
      runs++;
      texts += batch;
    }
    double wallMs = (System.nanoTime() - start) / 1e6;
    double cpuMs = (OS.getProcessCpuTime() - cpuStart) / 1e6;
    System.out.printf("%-40s batch %2d: %7.1f ms/call  %5.2f ms/text  CPU %5.2f ms/text  (%.0f texts/s)%n",
        what, batch, wallMs / runs, wallMs / texts, cpuMs / texts, texts / (wallMs / 1000));
  }

  /** Questions of typical length with bge's query instruction, all different. */
  private static List<String> questions(int count) {
    String[] subjects = {"a ROS 2 node", "a topic", "SLAM", "a URDF file", "a launch file", "Gazebo", "an action",
        "a service", "Isaac Sim", "a lidar scan", "odometry", "a transform tree"};
    String[] asks = {"What is %s?", "How do I configure %s in a humanoid robot?", "Why would %s fail at start-up?",
        "Explain how %s relates to the navigation stack and what parameters matter most."};
    List<String> questions = new ArrayList<>();
    for (int i = 0; questions.size() < count; i++) {
      String ask = asks[i % asks.length].formatted(subjects[(i / asks.length) % subjects.length]);
      questions.add(LocalOnnxProvider.QUERY_PREFIX + ask + (i >= 48 ? " (chapter " + i + ")" : ""));
    }
    return questions;
  }
}
