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
  @DisplayName("a progress line shows chunks done, skipped as unchanged, texts embedded, the rate and the time left")
  void countsRateAndEta() {
    AtomicLong clock = new AtomicLong(5 * SECOND);
    StringWriter out = new StringWriter();
    Progress progress = Progress.console(new PrintWriter(out, true), false, clock::get);
    clock.addAndGet(10 * SECOND);
    progress.update(new Progress.Counts(300, 600, 200, 100, 100));
    assertThat(out.toString().strip()).isEqualTo(
        "ingest: 300/600 chunks done (200 unchanged), 100 texts embedded, 10.0 chunks/s, 10s elapsed, about 30s left");
  }

  @Test
  @DisplayName("plain lines come at most once a second; finishing prints the last state, which says done")
  void throttledAndDone() {
    AtomicLong clock = new AtomicLong();
    StringWriter out = new StringWriter();
    Progress progress = Progress.console(new PrintWriter(out, true), false, clock::get);
    clock.set(SECOND);
    progress.update(new Progress.Counts(1, 370, 0, 1, 1));
    clock.set(SECOND + SECOND / 2);
    progress.update(new Progress.Counts(2, 370, 0, 2, 2));
    assertThat(out.toString().lines()).hasSize(1);
    clock.set(SECOND + SECOND * 3 / 4);
    progress.update(new Progress.Counts(370, 370, 0, 370, 370));
    clock.set(185 * SECOND);
    progress.finish();
    assertThat(out.toString().lines()).hasSize(2).last().asString().contains("3m05s elapsed, done");
    assertThat(Progress.duration(3720)).isEqualTo("1h02m");
  }

  @Test
  @DisplayName("before the first page is chunked (0/0) a line says reading pages, not done; finishing says done")
  void nothingChunkedYetIsNotDone() {
    AtomicLong clock = new AtomicLong();
    StringWriter out = new StringWriter();
    Progress progress = Progress.console(new PrintWriter(out, true), false, clock::get);
    progress.update(new Progress.Counts(0, 0, 0, 0, 0));
    assertThat(out.toString().strip()).endsWith("0s elapsed, reading pages");
    clock.set(SECOND / 2);
    progress.update(new Progress.Counts(0, 0, 0, 0, 0)); // within the second: not printed
    clock.set(2 * SECOND);
    progress.finish(); // a run that found nothing to chunk is over: its last line says so
    assertThat(out.toString().lines()).hasSize(2).last().asString().endsWith("2s elapsed, done");
    assertThat(new Progress.Counts(0, 0, 0, 0, 0).complete()).isFalse();
    assertThat(new Progress.Counts(5, 5, 0, 5, 5).complete()).isTrue();
  }

  @Test
  @DisplayName("a notice gets a line of its own, also between redrawn bars on a terminal")
  void noticeOnItsOwnLine() {
    StringWriter out = new StringWriter();
    Progress progress = Progress.console(new PrintWriter(out, true), true, () -> 0L);
    progress.update(new Progress.Counts(1, 2, 0, 1, 1));
    progress.notice("the embedding model changed");
    assertThat(out.toString()).contains("texts embedded").contains("\ningest: the embedding model changed\n");
  }
}
