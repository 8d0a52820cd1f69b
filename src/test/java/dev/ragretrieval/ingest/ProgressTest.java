package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ProgressTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  @DisplayName("each progress line shows the rate, the time elapsed and the time left")
  void rateElapsedAndEta() {
    AtomicLong clock = new AtomicLong(5 * SECOND);
    StringWriter out = new StringWriter();
    Progress progress = Progress.console(new PrintWriter(out, true), false, clock::get);
    clock.addAndGet(10 * SECOND);
    progress.update(100, 400);
    assertThat(out.toString().strip())
        .isEqualTo("ingest: 100/400 chunks processed, 10.0 chunks/s, 10s elapsed, about 30s left");
  }

  @Test
  @DisplayName("the last line says done; long times read as minutes or hours")
  void doneAndLongDurations() {
    AtomicLong clock = new AtomicLong();
    StringWriter out = new StringWriter();
    Progress progress = Progress.console(new PrintWriter(out, true), false, clock::get);
    clock.set(185 * SECOND);
    progress.update(370, 370);
    assertThat(out.toString()).contains("3m05s elapsed, done");
    assertThat(Progress.duration(3720)).isEqualTo("1h02m");
  }
}
