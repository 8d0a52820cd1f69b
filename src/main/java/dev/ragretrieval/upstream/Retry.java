package dev.ragretrieval.upstream;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Retries an upstream call with exponential backoff and full jitter. A server's Retry-After
 * (carried by {@link ServiceException#retryAfterSeconds()}) sets the least wait. No attempt starts
 * after the deadline, and no wait runs past it: then the last failure is what the caller gets.
 * Waits use {@code vertx.setTimer}, never a sleeping thread.
 */
public final class Retry {

  public record Policy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    public Policy {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1");
      }
    }
  }

  private final Vertx vertx;
  private final Policy policy;
  private final String upstream;
  private final RagMetrics metrics;

  /** {@code upstream} names the peer in metrics ("cohere", "openai", "qdrant"). */
  public Retry(Vertx vertx, Policy policy, String upstream, RagMetrics metrics) {
    this.vertx = vertx;
    this.metrics = metrics;
    this.policy = policy;
    this.upstream = upstream;
  }

  /** Retries the failures that say they are {@link ServiceException#retryable()}. */
  public <T> Future<T> call(Supplier<Future<T>> attempt, Deadline deadline) {
    return call(attempt, deadline, ServiceException::retryable);
  }

  /** Retries the failures {@code retryable} accepts; a TIMEOUT or a bug of ours (INTERNAL) is never retried. */
  public <T> Future<T> call(Supplier<Future<T>> attempt, Deadline deadline, Predicate<ServiceException> retryable) {
    Promise<T> promise = Promise.promise();
    run(attempt, deadline, retryable, 1, promise);
    return promise.future();
  }

  private <T> void run(Supplier<Future<T>> attempt, Deadline deadline, Predicate<ServiceException> retryable,
      int number, Promise<T> promise) {
    if (deadline.expired()) {
      promise.fail(deadline.timeout(upstream));
      return;
    }
    Future<T> result;
    try {
      result = attempt.get();
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onSuccess(promise::complete).onFailure(failure -> {
      ServiceException error = ServiceException.from(failure);
      if (error.code() != ErrorCode.TIMEOUT && error.code() != ErrorCode.INTERNAL && deadline.expired()) {
        error = deadline.timeout(upstream);
      }
      boolean last = number >= policy.maxAttempts() || !retryable.test(error) || error.code() == ErrorCode.TIMEOUT
          || error.code() == ErrorCode.INTERNAL;
      // a rate limit's Retry-After is the server's own wish; a 503's is advice for clients (a call
      // Qdrant closed mid-way goes out again at once, on a fresh connection)
      long wait = last ? 0 : backoffMillis(number,
          error.code() == ErrorCode.RATE_LIMIT ? error.retryAfterSeconds() : null);
      // a wait that would outlive the request ends it with what the upstream said
      if (last || wait >= deadline.remainingMillis()) {
        metrics.upstreamFailure(upstream, error.code());
        promise.fail(error);
        return;
      }
      metrics.upstreamRetry(upstream, error.code());
      vertx.setTimer(Math.max(1, wait), id -> run(attempt, deadline, retryable, number + 1, promise));
    });
  }

  /** Full jitter over an exponential ceiling, but never less than the server's Retry-After. */
  long backoffMillis(int attemptsMade, Integer retryAfterSeconds) {
    long ceiling = Math.min(policy.maxBackoff().toMillis(),
        policy.initialBackoff().toMillis() << Math.min(attemptsMade - 1, 20));
    long jittered = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    long floor = retryAfterSeconds == null ? 0 : retryAfterSeconds * 1000L;
    return Math.max(jittered, floor);
  }
}
