package dev.ragretrieval.upstream;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.tracing.Spans;
import io.vertx.circuitbreaker.CircuitBreakerState;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * The one wrapping of every call to an upstream (Qdrant, Cohere, OpenAI, the local model, Lucene),
 * always in this order: the circuit breaker, then retries, then a per-attempt budget (the
 * configured timeout, never past the request's {@link Deadline}), then metrics of the attempt.
 * Adapters hand in only the protocol call; failures come out as {@link ServiceException}s:
 * anything the adapter did not map is a bug of ours ({@link ErrorCode#INTERNAL}), which is never
 * retried and never opens the circuit.
 */
public final class Upstream {

  /** Which meter an attempt is recorded in. */
  public enum Kind { EMBEDDING, VECTOR_STORE }

  /** One attempt of the protocol call; it must give up after {@code budgetMillis}. */
  @FunctionalInterface
  public interface Attempt<T> {
    Future<T> run(long budgetMillis);
  }

  private final Kind kind;
  private final String name;
  private final String displayName;
  private final long attemptMillis;
  private final Circuit circuit;
  private final Retry retry;
  private final Predicate<ServiceException> retryable;
  private final RagMetrics metrics;

  /**
   * @param name the peer in metrics ("qdrant", "cohere", "local", "lucene")
   * @param displayName how messages name it ("Qdrant", "Cohere")
   * @param attemptTimeout the most one attempt may take
   * @param retryable which failures are worth another attempt (only ever retryable ones)
   */
  public Upstream(Vertx vertx, RagMetrics metrics, Kind kind, String name, String displayName, Retry.Policy policy,
      AppConfig.Circuit circuit, Duration attemptTimeout, Predicate<ServiceException> retryable) {
    this.kind = kind;
    this.name = name;
    this.displayName = displayName;
    this.attemptMillis = Math.max(1, attemptTimeout.toMillis());
    this.metrics = metrics;
    this.circuit = new Circuit(vertx, name, displayName, circuit, metrics);
    this.retry = new Retry(vertx, policy, name, metrics);
    this.retryable = failure -> failure.retryable() && retryable.test(failure);
  }

  /** Retries every failure that says it is retryable (429, 5xx, connection failures). */
  public Upstream(Vertx vertx, RagMetrics metrics, Kind kind, String name, String displayName, Retry.Policy policy,
      AppConfig.Circuit circuit, Duration attemptTimeout) {
    this(vertx, metrics, kind, name, displayName, policy, circuit, attemptTimeout, failure -> true);
  }

  /** For in-process work (the local model, Lucene): no circuit and one attempt, but the same deadline, budget and metrics. */
  public static Upstream inProcess(Vertx vertx, RagMetrics metrics, Kind kind, String name, String displayName,
      Duration attemptTimeout) {
    return new Upstream(vertx, metrics, kind, name, displayName, new Retry.Policy(1, Duration.ZERO, Duration.ZERO),
        AppConfig.Circuit.DISABLED, attemptTimeout);
  }

  /** Runs {@code attempt} through circuit, retries, budget and metrics; {@code inputs} = texts sent (0 when none). */
  public <T> Future<T> call(String operation, int inputs, Deadline deadline, Attempt<T> attempt) {
    if (deadline.expired()) {
      return Future.failedFuture(deadline.timeout(displayName));
    }
    return circuit.call(() -> retry.call(() -> attempt(operation, inputs, deadline, attempt), deadline, retryable));
  }

  /** As {@link #call(String, int, Deadline, Attempt)} for calls that send no texts. */
  public <T> Future<T> call(String operation, Deadline deadline, Attempt<T> attempt) {
    return call(operation, 0, deadline, attempt);
  }

  /** CLOSED, OPEN or HALF_OPEN; CLOSED when the breaker is off. */
  public CircuitBreakerState state() {
    return circuit.state();
  }

  public String displayName() {
    return displayName;
  }

  public void close() {
    circuit.close();
  }

  /** One attempt is one span ("qdrant search", "local embed"): retries show as siblings, each with its outcome. */
  private <T> Future<T> attempt(String operation, int inputs, Deadline deadline, Attempt<T> attempt) {
    return Spans.around(name + " " + operation, span -> {
      span.setAttribute(Spans.UPSTREAM, name);
      span.setAttribute(Spans.OPERATION, operation);
      if (inputs > 0) {
        span.setAttribute(Spans.INPUTS, inputs);
      }
      return measured(operation, inputs, deadline, attempt);
    });
  }

  private <T> Future<T> measured(String operation, int inputs, Deadline deadline, Attempt<T> attempt) {
    long left = deadline.remainingMillis();
    if (left <= 0) {
      return Future.failedFuture(deadline.timeout(displayName));
    }
    long budget = Math.min(attemptMillis, left);
    long started = System.nanoTime();
    Future<T> sent;
    try {
      sent = attempt.run(budget);
    } catch (RuntimeException bug) {
      sent = Future.failedFuture(bug);
    }
    return sent.transform(done -> {
      ServiceException failure = done.failed() ? failure(done.cause(), budget, deadline) : null;
      record(operation, inputs, Duration.ofNanos(System.nanoTime() - started), failure);
      return failure == null ? Future.succeededFuture(done.result()) : Future.<T>failedFuture(failure);
    });
  }

  /** One vocabulary for every upstream: the contract's code; a timeout names the deadline or the budget. */
  private ServiceException failure(Throwable cause, long budget, Deadline deadline) {
    if (cause instanceof TimeoutException
        || cause instanceof ServiceException e && e.code() == ErrorCode.TIMEOUT) {
      return deadline.expired() ? deadline.timeout(displayName)
          : new ServiceException(ErrorCode.TIMEOUT, displayName + " did not answer within " + budget + " ms");
    }
    return ServiceException.from(cause);
  }

  private void record(String operation, int inputs, Duration latency, ServiceException failure) {
    String outcome = outcome(failure);
    switch (kind) {
      case EMBEDDING -> metrics.embedding(name, latency, inputs, outcome);
      case VECTOR_STORE -> metrics.vectorStore(name, operation, latency, outcome);
    }
    if (failure != null && failure.code() == ErrorCode.RATE_LIMIT) {
      metrics.rateLimited(name);
    }
  }

  /** The outcome label of every upstream meter: "success" or the error code, in lower case. */
  public static String outcome(ServiceException failure) {
    return failure == null ? "success" : failure.code().name().toLowerCase(Locale.ROOT);
  }
}
