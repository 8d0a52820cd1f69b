package dev.ragretrieval.testing;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Blocking waits for tests that read top to bottom; only ever called on the test thread, never an event loop. */
public final class Await {

  private Await() {}

  /** The future's result; a failure or a minute without an answer fails the test. */
  public static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("future failed: " + e.getCause(), e.getCause());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /**
   * {@code exchange}, started on an event loop of {@code vertx}. For a raw vert.x HttpClient whose
   * body is read in the response's callback: started from the test thread, such an exchange now and
   * then never gets its body (vert.x 5.0.7; see {@code EventLoopLocal}). The WebClient reads the
   * body itself: none of 11,000 of its exchanges from a main thread lost one.
   */
  public static <T> Future<T> onLoop(Vertx vertx, Supplier<Future<T>> exchange) {
    Promise<T> done = Promise.promise();
    vertx.getOrCreateContext().runOnContext(ignored -> exchange.get().onComplete(done));
    return done.future();
  }

  /** Polls {@code condition} every 20 ms; ten seconds without it fails the test. */
  public static void eventually(BooleanSupplier condition) {
    long giveUp = System.currentTimeMillis() + 10_000;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > giveUp) {
        throw new AssertionError("condition not met within 10 s");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
