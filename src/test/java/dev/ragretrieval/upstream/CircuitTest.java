package dev.ragretrieval.upstream;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.circuitbreaker.CircuitBreakerState;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Circuit: an upstream that keeps failing is not called until its open period is over")
class CircuitTest {

  // open long enough that a loaded machine still makes the next call while it is open
  private static final AppConfig.Circuit THREE = new AppConfig.Circuit(3, Duration.ofSeconds(10), Duration.ofSeconds(30));
  private static final AppConfig.Circuit SHORT_OPEN = new AppConfig.Circuit(3, Duration.ofSeconds(10), Duration.ofSeconds(2));

  private final AtomicInteger calls = new AtomicInteger();

  private <T> Future<T> counted(Future<T> outcome) {
    calls.incrementAndGet();
    return outcome;
  }

  private static Future<String> down() {
    return Future.failedFuture(new ServiceException(ErrorCode.CONNECTION_ERROR, "cannot reach it"));
  }

  /** The failure of a call that must fail. */
  private static ServiceException failureOf(Future<?> call) {
    try {
      await(call);
    } catch (AssertionError expected) {
      assertThat(expected.getCause()).isInstanceOf(ServiceException.class);
      return (ServiceException) expected.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  @DisplayName("opens after the configured failures, then fails at once with CONNECTION_ERROR and a Retry-After")
  void opensAndFailsFast(Vertx vertx) {
    Circuit circuit = new Circuit(vertx, "test", "The upstream", THREE, RagMetrics.detached());
    for (int i = 0; i < 3; i++) {
      assertThat(failureOf(circuit.call(() -> counted(down()))).getMessage()).isEqualTo("cannot reach it");
    }
    assertThat(circuit.state()).isEqualTo(CircuitBreakerState.OPEN);

    ServiceException rejected = failureOf(circuit.call(() -> counted(Future.succeededFuture("never"))));
    assertThat(rejected.code()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    assertThat(rejected.retryAfterSeconds()).isBetween(20, 30);
    assertThat(rejected.getMessage()).startsWith("The upstream cannot be reached").contains("circuit open");
    assertThat(calls).as("the open circuit did not call the upstream").hasValue(3);
  }

  @Test
  @DisplayName("after the open period one trial call goes through; its success closes the circuit")
  void trialSuccessCloses(Vertx vertx) {
    Circuit circuit = openedThenReadyForTrial(vertx);
    assertThat(await(circuit.call(() -> counted(Future.succeededFuture("back"))))).isEqualTo("back");
    assertThat(circuit.state()).isEqualTo(CircuitBreakerState.CLOSED);
    assertThat(await(circuit.call(() -> counted(Future.succeededFuture("again"))))).isEqualTo("again");
    assertThat(calls).hasValue(2);
  }

  @Test
  @DisplayName("a failed trial opens the circuit again for another period")
  void trialFailureReopens(Vertx vertx) {
    Circuit circuit = openedThenReadyForTrial(vertx);
    failureOf(circuit.call(() -> counted(down())));
    assertThat(circuit.state()).isEqualTo(CircuitBreakerState.OPEN);
    assertThat(failureOf(circuit.call(() -> counted(Future.succeededFuture("no")))).getMessage()).contains("circuit open");
    assertThat(calls).hasValue(1);
  }

  @Test
  @DisplayName("failures about the request (bad input, a rejected key, a rate limit, a missing collection) never open it")
  void requestFailuresNeverCount(Vertx vertx) {
    Circuit circuit = new Circuit(vertx, "test", "The upstream", THREE, RagMetrics.detached());
    List<ServiceException> notTheUpstreamsFault = List.of(
        ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "rejected the request"),
        new ServiceException(ErrorCode.RATE_LIMIT, "slow down", null, 2),
        new ServiceException(ErrorCode.COLLECTION_NOT_FOUND, "no such collection"),
        new ServiceException(ErrorCode.INVALID_REQUEST, "bad filter"),
        new ServiceException(ErrorCode.TIMEOUT, "the request deadline passed"));
    for (int round = 0; round < 3; round++) {
      for (ServiceException failure : notTheUpstreamsFault) {
        assertThat(failureOf(circuit.call(() -> counted(Future.failedFuture(failure))))).isSameAs(failure);
      }
    }
    assertThat(circuit.state()).isEqualTo(CircuitBreakerState.CLOSED);
    assertThat(calls).hasValue(15);
  }

  @Test
  @DisplayName("server errors count like unreachable upstreams")
  void serverErrorsCount(Vertx vertx) {
    Circuit circuit = new Circuit(vertx, "test", "The upstream", THREE, RagMetrics.detached());
    for (int i = 0; i < 3; i++) {
      failureOf(circuit.call(() -> Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR, "HTTP 503"))));
    }
    assertThat(circuit.state()).isEqualTo(CircuitBreakerState.OPEN);
  }

  @Test
  @DisplayName("failures: 0 turns the breaker off: every call reaches the upstream")
  void off(Vertx vertx) {
    Circuit circuit = new Circuit(vertx, "test", "The upstream", new AppConfig.Circuit(0, Duration.ofSeconds(10), Duration.ofSeconds(5)), RagMetrics.detached());
    for (int i = 0; i < 10; i++) {
      failureOf(circuit.call(() -> counted(down())));
    }
    assertThat(circuit.state()).isEqualTo(CircuitBreakerState.CLOSED);
    assertThat(calls).hasValue(10);
  }

  /** A circuit opened by three failures whose open period is over: the next call is the trial. */
  private static Circuit openedThenReadyForTrial(Vertx vertx) {
    Circuit circuit = new Circuit(vertx, "test", "The upstream", SHORT_OPEN, RagMetrics.detached());
    for (int i = 0; i < 3; i++) {
      failureOf(circuit.call(CircuitTest::down));
    }
    awaitState(circuit, CircuitBreakerState.HALF_OPEN);
    return circuit;
  }

  private static void awaitState(Circuit circuit, CircuitBreakerState state) {
    long giveUp = System.currentTimeMillis() + 10_000;
    while (circuit.state() != state) {
      assertThat(System.currentTimeMillis()).as("circuit reached %s", state).isLessThan(giveUp);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
