package dev.ragretrieval.upstream;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.vertx.circuitbreaker.CircuitBreakerState;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeoutException;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Upstream: the one seam every upstream call goes through (circuit, retry, budget, metrics)")
class UpstreamTest {

  private static final Retry.Policy FOUR_ATTEMPTS = new Retry.Policy(4, Duration.ofMillis(5), Duration.ofMillis(20));
  private static final AppConfig.Circuit OPENS_AFTER_THREE =
      new AppConfig.Circuit(3, Duration.ofSeconds(30), Duration.ofSeconds(30));

  private final RagMetrics metrics = RagMetrics.detached();
  private final AtomicInteger attempts = new AtomicInteger();

  private Upstream upstream(Vertx vertx, Retry.Policy policy, Duration attemptTimeout) {
    return new Upstream(vertx, metrics, Upstream.Kind.VECTOR_STORE, "test", "The test upstream", policy,
        OPENS_AFTER_THREE, attemptTimeout);
  }

  private Upstream upstream(Vertx vertx) {
    return upstream(vertx, FOUR_ATTEMPTS, Duration.ofSeconds(5));
  }

  /** An attempt that fails with {@code failures} in turn, then answers "ok". */
  private Upstream.Attempt<String> failing(Throwable... failures) {
    return budget -> {
      int n = attempts.getAndIncrement();
      return n < failures.length ? Future.failedFuture(failures[n]) : Future.succeededFuture("ok");
    };
  }

  private static ServiceException failureOf(Future<?> call) {
    try {
      await(call);
    } catch (AssertionError expected) {
      assertThat(expected.getCause()).isInstanceOf(ServiceException.class);
      return (ServiceException) expected.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  private static ServiceException down() {
    return new ServiceException(ErrorCode.CONNECTION_ERROR, "cannot reach it");
  }

  private static Deadline seconds(int s) {
    return Deadline.in(Duration.ofSeconds(s));
  }

  @Test
  @DisplayName("a deadline already passed never starts a call: TIMEOUT naming the upstream")
  void passedDeadline(Vertx vertx) {
    ServiceException failure = failureOf(upstream(vertx).call("search", Deadline.passed(),
        failing()));

    assertThat(attempts).hasValue(0);
    assertThat(failure.code()).isEqualTo(ErrorCode.TIMEOUT);
    assertThat(failure.getMessage()).contains("The test upstream");
  }

  @Test
  @DisplayName("retryable failures are tried again until one succeeds")
  void retriesRetryable(Vertx vertx) {
    String answer = await(upstream(vertx).call("search", seconds(10),
        failing(down(), new ServiceException(ErrorCode.RATE_LIMIT, "slow down", null, null))));

    assertThat(answer).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
  }

  @Test
  @DisplayName("a failure another attempt cannot mend is not retried")
  void permanentNotRetried(Vertx vertx) {
    ServiceException failure = failureOf(upstream(vertx).call("search", seconds(10),
        failing(ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "bad key"))));

    assertThat(attempts).hasValue(1);
    assertThat(failure.getMessage()).isEqualTo("bad key");
  }

  @Test
  @DisplayName("an upstream may narrow what is retried: a 5xx is not retried when only rate limits and outages are")
  void narrowedRetries(Vertx vertx) {
    Upstream narrow = new Upstream(vertx, metrics, Upstream.Kind.VECTOR_STORE, "test", "The test upstream",
        FOUR_ATTEMPTS, OPENS_AFTER_THREE, Duration.ofSeconds(5),
        e -> e.code() == ErrorCode.RATE_LIMIT || e.code() == ErrorCode.CONNECTION_ERROR);

    ServiceException failure = failureOf(narrow.call("search", seconds(10),
        failing(new ServiceException(ErrorCode.UPSTREAM_ERROR, "Qdrant answered INTERNAL"))));

    assertThat(attempts).hasValue(1);
    assertThat(failure.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
  }

  @Test
  @DisplayName("a Retry-After is waited out before the next attempt")
  void honoursRetryAfter(Vertx vertx) {
    List<Long> started = new CopyOnWriteArrayList<>();
    Upstream.Attempt<String> attempt = budget -> {
      started.add(System.nanoTime());
      return started.size() == 1
          ? Future.failedFuture(new ServiceException(ErrorCode.RATE_LIMIT, "slow down", null, 1))
          : Future.succeededFuture("ok");
    };

    assertThat(await(upstream(vertx).call("search", seconds(10), attempt))).isEqualTo("ok");

    assertThat(started).hasSize(2);
    assertThat(Duration.ofNanos(started.get(1) - started.get(0))).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  @DisplayName("a Retry-After longer than the time left ends the call with the rate limit, without another attempt")
  void retryAfterPastDeadline(Vertx vertx) {
    ServiceException failure = failureOf(upstream(vertx).call("search", Deadline.in(Duration.ofMillis(800)),
        failing(new ServiceException(ErrorCode.RATE_LIMIT, "slow down", null, 5))));

    assertThat(attempts).hasValue(1);
    assertThat(failure.code()).isEqualTo(ErrorCode.RATE_LIMIT);
  }

  @Test
  @DisplayName("each attempt gets the configured timeout as its budget, never more than the time left")
  void perAttemptBudget(Vertx vertx) {
    List<Long> budgets = new ArrayList<>();
    Upstream.Attempt<String> record = budget -> {
      budgets.add(budget);
      return Future.succeededFuture("ok");
    };
    Upstream shortAttempts = upstream(vertx, FOUR_ATTEMPTS, Duration.ofMillis(300));

    await(shortAttempts.call("search", seconds(30), record));
    await(shortAttempts.call("search", Deadline.in(Duration.ofMillis(200)), record));

    assertThat(budgets.get(0)).isEqualTo(300);
    assertThat(budgets.get(1)).isPositive().isLessThanOrEqualTo(200);
  }

  @Test
  @DisplayName("an attempt that outlives its budget is a TIMEOUT saying so, and is not retried")
  void budgetTimeout(Vertx vertx) {
    ServiceException failure = failureOf(upstream(vertx, FOUR_ATTEMPTS, Duration.ofMillis(300))
        .call("search", seconds(30), failing(new TimeoutException("timed out"))));

    assertThat(attempts).hasValue(1);
    assertThat(failure.code()).isEqualTo(ErrorCode.TIMEOUT);
    assertThat(failure.getMessage()).isEqualTo("The test upstream did not answer within 300 ms");
  }

  @Test
  @DisplayName("outages open the circuit: later calls fail at once with CONNECTION_ERROR and Retry-After")
  void outagesOpenTheCircuit(Vertx vertx) {
    Upstream upstream = upstream(vertx, new Retry.Policy(1, Duration.ZERO, Duration.ZERO), Duration.ofSeconds(5));
    for (int i = 0; i < 3; i++) {
      failureOf(upstream.call("search", seconds(10), budget -> Future.failedFuture(down())));
    }

    ServiceException rejected = failureOf(upstream.call("search", seconds(10), failing()));

    assertThat(upstream.state()).isEqualTo(CircuitBreakerState.OPEN);
    assertThat(attempts).hasValue(0);
    assertThat(rejected.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(rejected.retryAfterSeconds()).isPositive();
  }

  @Test
  @DisplayName("request errors never open the circuit")
  void requestErrorsKeepItClosed(Vertx vertx) {
    Upstream upstream = upstream(vertx);
    for (int i = 0; i < 6; i++) {
      failureOf(upstream.call("search", seconds(10),
          budget -> Future.failedFuture(ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "bad filter"))));
      failureOf(upstream.call("search", seconds(10),
          budget -> Future.failedFuture(new ServiceException(ErrorCode.COLLECTION_NOT_FOUND, "no such collection"))));
    }

    assertThat(upstream.state()).isEqualTo(CircuitBreakerState.CLOSED);
  }

  @Test
  @DisplayName("a bug of ours is INTERNAL: no class name or text in the message, tried once, and never opens the circuit")
  void bugsAreInternal(Vertx vertx) {
    Upstream upstream = upstream(vertx);
    List<ServiceException> failures = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      failures.add(failureOf(upstream.call("search", seconds(10), budget -> {
        attempts.incrementAndGet();
        throw new NullPointerException("secret detail of ours");
      })));
    }

    assertThat(attempts).hasValue(6);
    assertThat(upstream.state()).isEqualTo(CircuitBreakerState.CLOSED);
    ServiceException failure = failures.get(0);
    assertThat(failure.code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(failure.code().httpStatus()).isEqualTo(500);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).doesNotContain("NullPointer").doesNotContain("secret");
    assertThat(failure.getCause()).isInstanceOf(NullPointerException.class);
  }

  @Test
  @DisplayName("every attempt is recorded with one outcome vocabulary: \"success\" or the error code in lower case")
  void outcomeLabels(Vertx vertx) {
    await(upstream(vertx).call("search", seconds(10), failing(down())));
    failureOf(upstream(vertx).call("facet", seconds(10), budget -> {
      throw new IllegalStateException("bug");
    }));

    assertThat(attemptsRecorded("search", "connection_error")).isEqualTo(1);
    assertThat(attemptsRecorded("search", "success")).isEqualTo(1);
    assertThat(attemptsRecorded("facet", "internal")).isEqualTo(1);
    assertThat(metrics.registry().find("rag_vector_store_duration_seconds").timers())
        .allSatisfy(timer -> assertThat(timer.getId().getTag("outcome")).matches("[a-z_]+"));
  }

  @Test
  @DisplayName("an embedding provider's attempts count the inputs sent and the 429s answered")
  void inputsAndRateLimits(Vertx vertx) {
    Upstream provider = new Upstream(vertx, metrics, Upstream.Kind.EMBEDDING, "cohere", "Cohere", FOUR_ATTEMPTS,
        OPENS_AFTER_THREE, Duration.ofSeconds(5));

    await(provider.call("embed", 3, seconds(10), failing(new ServiceException(ErrorCode.RATE_LIMIT, "slow down"))));

    Counter inputs = metrics.registry().find("rag_embedding_inputs_total").tag("provider", "cohere").counter();
    Counter limited = metrics.registry().find("rag_upstream_rate_limited_total").tag("upstream", "cohere").counter();
    assertThat(inputs.count()).isEqualTo(6.0); // both attempts sent the three texts
    assertThat(limited.count()).isEqualTo(1.0);
  }

  private long attemptsRecorded(String operation, String outcome) {
    Timer timer = metrics.registry().find("rag_vector_store_duration_seconds")
        .tags("store", "test", "operation", operation, "outcome", outcome).timer();
    return timer == null ? 0 : timer.count();
  }
}
