package dev.ragretrieval.http;

import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admission to /v1/*: at most {@code maxInFlight} requests at once (streams count until they
 * end), none once draining has begun. A graceful shutdown drains and then waits for idle.
 */
public final class RequestGate {

  public enum Admission { ADMITTED, OVERLOADED, DRAINING }

  private final int maxInFlight;
  private final AtomicInteger inFlight = new AtomicInteger();
  // the gauge this gate moves, fixed at construction so enter and leave always hit the same one
  private final AtomicInteger inFlightGauge;
  private volatile boolean draining;
  // what each admitted request does when the shutdown grace expires before it has finished
  private final Set<Runnable> expiries = ConcurrentHashMap.newKeySet();

  public RequestGate(int maxInFlight, RagMetrics metrics) {
    this.maxInFlight = maxInFlight;
    this.inFlightGauge = metrics.inFlight();
  }

  /** On ADMITTED the caller must call {@link #leave()} exactly once. */
  public Admission enter() {
    if (draining) {
      return Admission.DRAINING;
    }
    while (true) {
      int current = inFlight.get();
      if (current >= maxInFlight) {
        return Admission.OVERLOADED;
      }
      if (inFlight.compareAndSet(current, current + 1)) {
        inFlightGauge.incrementAndGet();
        return Admission.ADMITTED;
      }
    }
  }

  public void leave() {
    inFlight.decrementAndGet();
    inFlightGauge.decrementAndGet();
  }

  public int inFlight() {
    return inFlight.get();
  }

  public boolean draining() {
    return draining;
  }

  /** From now on readiness is DOWN and new work is refused. */
  public void drain() {
    draining = true;
  }

  /**
   * Registers what an admitted request does if the shutdown grace expires while it is still open;
   * it runs on {@code context} (the request's event loop). Returns the call that forgets it, for
   * when the request is over.
   */
  public Runnable onGraceExpiry(Context context, Runnable expire) {
    Runnable onContext = () -> context.runOnContext(v -> expire.run());
    expiries.add(onContext);
    return () -> expiries.remove(onContext);
  }

  /**
   * The grace is over: every request still open is answered now (503 OVERLOADED, or an error
   * event that ends a stream). Completes once they have all finished, or after {@code flush} at
   * the latest.
   */
  public Future<Boolean> expire(Vertx vertx, Duration flush) {
    expiries.forEach(Runnable::run);
    return awaitIdle(vertx, flush);
  }

  /** Completes with true once nothing is in flight, or with false when the grace runs out first. */
  public Future<Boolean> awaitIdle(Vertx vertx, Duration grace) {
    Promise<Boolean> idle = Promise.promise();
    long giveUpAt = System.currentTimeMillis() + grace.toMillis();
    poll(vertx, giveUpAt, idle);
    return idle.future();
  }

  private void poll(Vertx vertx, long giveUpAt, Promise<Boolean> idle) {
    if (inFlight.get() == 0) {
      idle.complete(true);
    } else if (System.currentTimeMillis() >= giveUpAt) {
      idle.complete(false);
    } else {
      vertx.setTimer(25, id -> poll(vertx, giveUpAt, idle));
    }
  }
}
