package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The budget on a clock the test moves: starts are computed, nothing waits. */
class RateBudgetTest {

  private static final long MS = 1_000_000L;

  @Test
  @DisplayName("calls are paced evenly at the budget's rate")
  void pacesEvenly() {
    AtomicLong clock = new AtomicLong();
    RateBudget budget = new RateBudget(600, clock::get); // 10 texts a second
    assertThat(budget.reserve(10)).isZero();
    assertThat(budget.reserve(10)).isEqualTo(1000);
    assertThat(budget.reserve(20)).isEqualTo(2000);
    clock.set(10_000 * MS); // idle a while: no debt carried
    assertThat(budget.reserve(10)).isZero();
  }

  @Test
  @DisplayName("no 60-second window ever holds more texts than the budget, however the calls are sized")
  void slidingWindowNeverExceeded() {
    AtomicLong clock = new AtomicLong();
    RateBudget budget = new RateBudget(200, clock::get);
    List<long[]> sent = new ArrayList<>(); // {start ms, texts}
    int[] sizes = {96, 96, 96, 7, 50, 96, 1, 96, 33, 96, 96, 96};
    for (int size : sizes) {
      long start = clock.get() / MS + budget.reserve(size);
      sent.add(new long[] {start, size});
      clock.addAndGet(5 * MS); // callers come back at once
    }
    for (long[] from : sent) {
      long inWindow = sent.stream().filter(s -> s[0] >= from[0] && s[0] < from[0] + 60_000).mapToLong(s -> s[1]).sum();
      assertThat(inWindow).isLessThanOrEqualTo(200);
    }
    assertThat(sent.get(sent.size() - 1)[0]).isGreaterThan(60_000);
  }
}
