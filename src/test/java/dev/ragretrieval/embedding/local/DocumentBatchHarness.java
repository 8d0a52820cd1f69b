package dev.ragretrieval.embedding.local;

import dev.ragretrieval.embedding.Vectors;
import dev.ragretrieval.ingest.Chunk;
import dev.ragretrieval.ingest.Chunker;
import dev.ragretrieval.ingest.SampleBook;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Measures what sharing session runs would do to documents (issue 20, item 6): the sample book's
 * chunks, as the ingest sends them, embedded one row a run ({@link BgeBatchEncoder#EXACT}, what the
 * provider does) and with up to N rows a run; per N the CPU time per chunk on this thread and the
 * cosine of each chunk's vector against its one-row vector. Not a test: run it by hand,
 * <pre>java -cp target/classes:target/test-classes:$(cat target/bench.classpath) dev.ragretrieval.embedding.local.DocumentBatchHarness [rows...]</pre>
 */
public final class DocumentBatchHarness {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private DocumentBatchHarness() {}

  public static void main(String[] args) throws Exception {
    List<String> texts = SampleBook.pages().stream().flatMap(page -> new Chunker().chunk(page).stream())
        .map(Chunk::embedText).toList();
    BgeBatchEncoder encoder = new BgeBatchEncoder(BgeBatchEncoder.sessionOptions(1), BgeBatchEncoder.EXACT);
    encoder.embed(texts.subList(0, Math.min(40, texts.size()))); // warm-up
    long cpu = THREADS.getCurrentThreadCpuTime();
    List<float[]> exact = encoder.embed(texts, BgeBatchEncoder.EXACT);
    double exactMs = (THREADS.getCurrentThreadCpuTime() - cpu) / 1e6 / texts.size();
    System.out.printf(Locale.ROOT, "%d chunks; 1 row a run: %.1f ms CPU a chunk (%.0f chunks/s on one core)%n",
        texts.size(), exactMs, 1000 / exactMs);
    int[] rows = args.length == 0 ? new int[] {4, 8, 32} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    for (int n : rows) {
      cpu = THREADS.getCurrentThreadCpuTime();
      List<float[]> batched = encoder.embed(texts, n);
      double ms = (THREADS.getCurrentThreadCpuTime() - cpu) / 1e6 / texts.size();
      double[] cosines = new double[texts.size()];
      for (int i = 0; i < texts.size(); i++) {
        cosines[i] = Vectors.cosine(batched.get(i), exact.get(i));
      }
      Arrays.sort(cosines);
      System.out.printf(Locale.ROOT, "up to %d rows a run: %.1f ms CPU a chunk (%.2fx), cosine to one row: "
              + "min %.4f, 1st percentile %.4f, median %.4f, %d of %d below 0.993%n",
          n, ms, exactMs / ms, cosines[0], cosines[cosines.length / 100], cosines[cosines.length / 2],
          Arrays.stream(cosines).filter(c -> c < 0.993).count(), cosines.length);
    }
  }
}
