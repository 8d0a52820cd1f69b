package dev.ragretrieval.ingest;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Reports how many chunks are stored so far, with the rate, the time elapsed and an estimate of
 * the time left: a bar on a terminal, plain lines elsewhere.
 */
public interface Progress {

  Progress NONE = (done, total) -> {};

  void update(int done, int total);

  default void finish() {}

  /** A redrawn bar when {@code terminal}, else a line per update. */
  static Progress console(PrintWriter out, boolean terminal) {
    return console(out, terminal, System::nanoTime);
  }

  /** As above, timed by {@code nanoTime} (tests pass their own clock). */
  static Progress console(PrintWriter out, boolean terminal, LongSupplier nanoTime) {
    long start = nanoTime.getAsLong();
    if (!terminal) {
      return (done, total) -> {
        out.println("ingest: " + done + "/" + total + " chunks processed, " + timing(done, total, start, nanoTime));
        out.flush();
      };
    }
    return new Progress() {
      private boolean drawn;

      @Override
      public void update(int done, int total) {
        int width = 30;
        int filled = total == 0 ? width : (int) ((long) done * width / total);
        out.print("\r[" + "#".repeat(filled) + ".".repeat(width - filled) + "] " + done + "/" + total + " chunks, "
            + timing(done, total, start, nanoTime) + "   ");
        out.flush();
        drawn = true;
      }

      @Override
      public void finish() {
        if (drawn) {
          out.println();
          out.flush();
        }
      }
    };
  }

  /** Log lines, for start-up loading in the server. */
  static Progress log(Logger log, String what) {
    long start = System.nanoTime();
    return (done, total) -> log.info("{}: {}/{} chunks processed, {}", what, done, total,
        timing(done, total, start, System::nanoTime));
  }

  /** "12.5 chunks/s, 8s elapsed, about 24s left". */
  static String timing(int done, int total, long startNanos, LongSupplier nanoTime) {
    double seconds = Math.max(0, nanoTime.getAsLong() - startNanos) / 1e9;
    double rate = seconds > 0 ? done / seconds : 0;
    String left = done >= total ? "done" : rate > 0 ? "about " + duration((total - done) / rate) + " left" : "time left unknown";
    return String.format(Locale.ROOT, "%.1f chunks/s, %s elapsed, %s", rate, duration(seconds), left);
  }

  /** 42s, 3m05s, 1h02m. */
  static String duration(double seconds) {
    long s = Math.round(seconds);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}
