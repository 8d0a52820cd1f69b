package dev.ragretrieval.upstream;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.circuitbreaker.CircuitBreaker;
import io.vertx.circuitbreaker.CircuitBreakerOptions;
import io.vertx.circuitbreaker.CircuitBreakerState;
import io.vertx.circuitbreaker.OpenCircuitException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A circuit breaker in front of one upstream (Qdrant, the embedding provider), around its retries.
 * When calls keep failing to reach it, later calls fail at once with 503 CONNECTION_ERROR and a
 * Retry-After instead of each spending its deadline on retries; after the open period one call
 * tries again, and its success closes the circuit.
 *
 * <p>Only failures that say the upstream is down count: it could not be reached, or it answered
 * with a server error. A bad filter, a rejected key, a missing collection or a rate limit never
 * count, so no client can open the circuit for the others with bad requests.
 */
public final class Circuit {

  private static final Logger LOG = LoggerFactory.getLogger(Circuit.class);

  private final CircuitBreaker breaker;
  private final String upstream;
  private final String displayName;
  private final AppConfig.Circuit config;
  private final RagMetrics metrics;
  private volatile long openedAt;

  /** {@code upstream} names the peer in metrics ("qdrant", "cohere"); {@code displayName} in messages. */
  public Circuit(Vertx vertx, String upstream, String displayName, AppConfig.Circuit config, RagMetrics metrics) {
    this.upstream = upstream;
    this.metrics = metrics;
    this.displayName = displayName;
    this.config = config;
    if (!config.enabled()) {
      breaker = null;
      return;
    }
    breaker = CircuitBreaker.create("rag-" + upstream, vertx, new CircuitBreakerOptions()
            .setMaxFailures(config.failures())
            .setFailuresRollingWindow(config.window().toMillis())
            .setResetTimeout(config.open().toMillis())
            // the calls keep their own deadlines, retries and fallbacks; no event-bus notifications
            .setTimeout(-1)
            .setMaxRetries(0)
            .setFallbackOnFailure(false)
            .setNotificationAddress(null))
        .failurePolicy(outcome -> outcome.failed() && countsAgainst(ServiceException.from(outcome.cause())))
        .openHandler(v -> {
          openedAt = System.currentTimeMillis();
          metrics.circuitOpened(upstream);
          // opened by config.failures() failures within the window, or by a failed trial call
          LOG.warn("{} circuit open: it keeps failing; calls fail at once for {} ms, then one tries again",
              displayName, config.open().toMillis());
        })
        .closeHandler(v -> LOG.info("{} circuit closed: calls reach it again", displayName));
  }

  /** Whether a failure says the upstream itself is down, not that the request was wrong (nor that we have a bug). */
  static boolean countsAgainst(ServiceException failure) {
    // a permanent CONNECTION_ERROR is a reachable upstream reporting part of itself down (a Qdrant
    // shard on a lost node): the upstream as a whole still answers
    return (failure.code() == ErrorCode.CONNECTION_ERROR || failure.code() == ErrorCode.UPSTREAM_ERROR)
        && failure.retryable();
  }

  /** Runs {@code call} unless the circuit is open; then fails at once with CONNECTION_ERROR. */
  public <T> Future<T> call(Supplier<Future<T>> call) {
    if (breaker == null) {
      return call.get();
    }
    return breaker.<T>execute(() -> {
      try {
        return call.get();
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    }).recover(failure -> Future.failedFuture(failure instanceof OpenCircuitException ? rejected() : failure));
  }

  /** CLOSED, OPEN or HALF_OPEN; CLOSED when the breaker is off. */
  public CircuitBreakerState state() {
    return breaker == null ? CircuitBreakerState.CLOSED : breaker.state();
  }

  private ServiceException rejected() {
    metrics.circuitRejected(upstream);
    long left = openedAt + config.open().toMillis() - System.currentTimeMillis();
    int seconds = (int) Math.max(1, (left + 999) / 1000);
    return new ServiceException(ErrorCode.CONNECTION_ERROR,
        displayName + " cannot be reached (circuit open after repeated failures); retry in " + seconds + " s",
        null, seconds);
  }

  public void close() {
    if (breaker != null) {
      breaker.close();
    }
  }
}
