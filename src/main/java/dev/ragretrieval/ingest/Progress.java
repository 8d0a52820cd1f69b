package dev.ragretrieval.ingest;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Reports an ingest as it runs: chunks done of those known so far, how many of them were skipped
 * as unchanged, texts embedded, the embedding rate and an estimate of the time left. A bar on a
 * terminal, plain lines elsewhere (at most one a second, and the last one).
 */
public interface Progress {

  /**
   * Where a run stands. {@code done} counts chunks stored, skipped as unchanged, or failed, out of
   * the {@code total} chunked so far; {@code embedded} chunks were embedded and stored this run;
   * {@code textsSent} counts every text sent to the embedder, retries included.
   */
  record Counts(long done, long total, long skipped, long embedded, long textsSent) {

    /** All chunks known are done (more may still come while pages are read); none known is not complete. */
    boolean complete() {
      return total > 0 && done >= total;
    }
  }

  Progress NONE = counts -> {};

  void update(Counts counts);

  /** A line worth a user's attention (why everything is re-embedded, a rate limit); on its own line. */
  default void notice(String line) {}

  default void finish() {}

  /** A redrawn bar when {@code terminal}, else a line a second at most. */
  static Progress console(PrintWriter out, boolean terminal) {
    return console(out, terminal, System::nanoTime);
  }

  /** As above, timed by {@code nanoTime} (tests pass their own clock). */
  static Progress console(PrintWriter out, boolean terminal, LongSupplier nanoTime) {
    long start = nanoTime.getAsLong();
    return new Progress() {
      private boolean drawn;
      private long lastLine = Long.MIN_VALUE;
      private Counts last;
      private boolean lastPrinted;

      @Override
      public synchronized void update(Counts counts) {
        last = counts;
        long now = nanoTime.getAsLong();
        if (terminal) {
          int width = 30;
          int filled = counts.total() == 0 ? 0 : (int) (counts.done() * width / counts.total());
          out.print("\r[" + "#".repeat(filled) + ".".repeat(width - filled) + "] " + line(counts, start, now, false) + "   ");
          out.flush();
          drawn = true;
          return;
        }
        lastPrinted = now - lastLine >= 1_000_000_000L || lastLine == Long.MIN_VALUE;
        if (lastPrinted) {
          lastLine = now;
          out.println("ingest: " + line(counts, start, now, false));
          out.flush();
        }
      }

      @Override
      public synchronized void notice(String line) {
        if (drawn) {
          out.println();
          drawn = false;
        }
        out.println("ingest: " + line);
        out.flush();
      }

      @Override
      public synchronized void finish() {
        if (drawn) {
          out.println();
          out.flush();
          drawn = false;
        } else if (!terminal && last != null && !lastPrinted) {
          out.println("ingest: " + line(last, start, nanoTime.getAsLong(), true));
          out.flush();
        }
      }
    };
  }

  /** Log lines, for start-up loading in the server. */
  static Progress log(Logger log, String what) {
    long start = System.nanoTime();
    return new Progress() {
      private long lastLine = Long.MIN_VALUE;

      @Override
      public synchronized void update(Counts counts) {
        long now = System.nanoTime();
        if (now - lastLine >= 5_000_000_000L || lastLine == Long.MIN_VALUE || counts.complete()) {
          lastLine = now;
          log.info("{}: {}", what, line(counts, start, now, false));
        }
      }

      @Override
      public void notice(String line) {
        log.info("{}: {}", what, line);
      }
    };
  }

  /**
   * "1200/2450 chunks done (800 unchanged), 400 texts embedded, 310.0 chunks/s, 3s elapsed, about
   * 4s left": the rate is of chunks embedded, and the time left is the chunks still to embed at it.
   * Before the first page is chunked (0/0) it says "reading pages", not "done", unless
   * {@code finished}.
   */
  static String line(Counts c, long startNanos, long nowNanos, boolean finished) {
    double seconds = Math.max(0, nowNanos - startNanos) / 1e9;
    double rate = seconds > 0 ? c.embedded() / seconds : 0;
    long left = c.total() - c.done();
    String eta = finished || c.complete() ? "done"
        : c.total() == 0 ? "reading pages"
        : rate > 0 ? "about " + duration(left / rate) + " left" : "time left unknown";
    return String.format(Locale.ROOT, "%d/%d chunks done (%d unchanged), %d texts embedded, %.1f chunks/s, %s elapsed, %s",
        c.done(), c.total(), c.skipped(), c.textsSent(), rate, duration(seconds), eta);
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
