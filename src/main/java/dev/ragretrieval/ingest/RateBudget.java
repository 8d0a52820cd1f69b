package dev.ragretrieval.ingest;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * A budget of texts per minute for embed calls. Calls are paced evenly (each call of n texts moves
 * the earliest next start on by n/rate), and no 60-second window ever holds more than the budget:
 * the pacing alone would let one extra call into a window. Not thread-safe: one event loop asks.
 */
final class RateBudget {

  private static final long MINUTE = 60_000_000_000L;

  private final int perMinute;
  private final LongSupplier nanoTime;
  /** Calls sent in the last minute: {start nanos, texts}, oldest first. */
  private final Deque<long[]> window = new ArrayDeque<>();
  private long inWindow;
  private long nextStart = Long.MIN_VALUE;

  RateBudget(int perMinute, LongSupplier nanoTime) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("the budget must be at least one text per minute");
    }
    this.perMinute = perMinute;
    this.nanoTime = nanoTime;
  }

  int perMinute() {
    return perMinute;
  }

  /**
   * Books a call of {@code texts} (at most the budget) and answers how many milliseconds the
   * caller must wait before sending it; the booking counts from then on.
   */
  long reserve(int texts) {
    if (texts > perMinute) {
      throw new IllegalArgumentException("a call of " + texts + " texts can never fit a budget of " + perMinute);
    }
    long now = nanoTime.getAsLong();
    long start = Math.max(now, nextStart);
    // drop what has left the window by then; if still too full, start when enough has left
    while (true) {
      while (!window.isEmpty() && window.peekFirst()[0] + MINUTE <= start) {
        inWindow -= window.pollFirst()[1];
      }
      if (inWindow + texts <= perMinute) {
        break;
      }
      start = window.peekFirst()[0] + MINUTE;
    }
    window.addLast(new long[] {start, texts});
    inWindow += texts;
    nextStart = start + texts * MINUTE / perMinute;
    return (start - now + 999_999) / 1_000_000;
  }
}
