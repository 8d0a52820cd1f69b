package dev.ragretrieval.ingest;

import java.io.PrintWriter;
import org.slf4j.Logger;

/** Reports how many chunks are stored so far: a bar on a terminal, plain lines elsewhere. */
public interface Progress {

  Progress NONE = (done, total) -> {};

  void update(int done, int total);

  default void finish() {}

  /** A redrawn bar when {@code terminal}, else a line per update. */
  static Progress console(PrintWriter out, boolean terminal) {
    if (!terminal) {
      return (done, total) -> {
        out.println("ingest: " + done + "/" + total + " chunks processed");
        out.flush();
      };
    }
    return new Progress() {
      private boolean drawn;

      @Override
      public void update(int done, int total) {
        int width = 30;
        int filled = total == 0 ? width : (int) ((long) done * width / total);
        out.print("\r[" + "#".repeat(filled) + ".".repeat(width - filled) + "] " + done + "/" + total + " chunks");
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
    return (done, total) -> log.info("{}: {}/{} chunks processed", what, done, total);
  }
}
