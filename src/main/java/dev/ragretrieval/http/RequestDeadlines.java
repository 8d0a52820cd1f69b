package dev.ragretrieval.http;

import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The deadline of every request in flight on one event loop, kept with one timer for all of them
 * instead of a timer set and cancelled per request. Every request gets the same timeout, so their
 * deadlines fall in the order they were admitted: the timer waits for the oldest request still in
 * flight; when it fires it expires the requests whose time is up and waits for the next oldest.
 * Answered requests leave the set at once. Under steady load the timer fires about once per
 * timeout, whatever the request rate.
 *
 * <p>Used only on its verticle's event loop: no locking.
 */
final class RequestDeadlines {

  private final Vertx vertx;
  private final long timeoutNanos;
  /** In flight, oldest first. */
  private final LinkedHashSet<Tracked> inFlight = new LinkedHashSet<>();
  private boolean armed;
  private long timersSet;

  /** One request: its deadline, and what to do when it passes. */
  private static final class Tracked {
    final long deadlineNanos;
    final Runnable expire;

    Tracked(long deadlineNanos, Runnable expire) {
      this.deadlineNanos = deadlineNanos;
      this.expire = expire;
    }
  }

  RequestDeadlines(Vertx vertx, long timeoutMillis) {
    this.vertx = vertx;
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
  }

  /**
   * Tracks a request admitted now with the configured timeout: {@code expire} runs once it has
   * passed, unless the returned action (call it when the request is answered) ran first.
   */
  Runnable admit(Runnable expire) {
    return admit(new Deadline(System.nanoTime() + timeoutNanos), expire);
  }

  /**
   * Tracks a request whose {@link Deadline} was made at admission: the same value the request's
   * upstream calls count down, so the edge's 504 and the upstreams' TIMEOUT share one clock.
   */
  Runnable admit(Deadline deadline, Runnable expire) {
    Tracked tracked = new Tracked(deadline.nanos(), expire);
    inFlight.add(tracked);
    if (!armed) {
      arm(tracked.deadlineNanos);
    }
    return () -> inFlight.remove(tracked);
  }

  /** Timers set so far (tests: one per timeout under load, not one per request). */
  long timersSet() {
    return timersSet;
  }

  private void arm(long deadlineNanos) {
    armed = true;
    timersSet++;
    long delayMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime() + 999_999));
    vertx.setTimer(delayMillis, id -> fire());
  }

  private void fire() {
    armed = false;
    long now = System.nanoTime();
    List<Tracked> expired = new ArrayList<>();
    for (Iterator<Tracked> oldest = inFlight.iterator(); oldest.hasNext(); ) {
      Tracked tracked = oldest.next();
      if (tracked.deadlineNanos - now > 0) {
        break;
      }
      oldest.remove();
      expired.add(tracked);
    }
    if (!inFlight.isEmpty()) {
      arm(inFlight.iterator().next().deadlineNanos);
    }
    // after the set is settled: an expiry answers its request, whose end handler forgets it
    expired.forEach(tracked -> tracked.expire.run());
  }
}
