package dev.ragretrieval.upstream;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("Coalescer: one event-loop turn's upstream calls go as one")
class CoalescerTest {

  /** Inputs of each call made, alone or together. */
  private final List<String> alone = new CopyOnWriteArrayList<>();
  private final List<List<String>> together = new CopyOnWriteArrayList<>();

  /** Answers "x!" for "x"; "bad" alone fails as a permanent refusal. */
  private Coalescer<String, String> coalescer(ServiceException togetherFails) {
    return new Coalescer<>(input -> {
      alone.add(input);
      return input.equals("bad")
          ? Future.failedFuture(ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "refused"))
          : Future.succeededFuture(input + "!");
    }, inputs -> {
      together.add(List.copyOf(inputs));
      return togetherFails != null ? Future.failedFuture(togetherFails)
          : Future.succeededFuture(inputs.stream().map(input -> input + "!").toList());
    }, Coalescer::permanentRefusal);
  }

  /** Runs {@code calls} in one task on an event loop: one turn. */
  private static <T> T inOneTurn(Vertx vertx, Supplier<T> calls) {
    Promise<T> made = Promise.promise();
    vertx.getOrCreateContext().runOnContext(ignored -> made.complete(calls.get()));
    return await(made.future());
  }

  private static List<Future<String>> ask(Coalescer<String, String> coalescer, String... inputs) {
    List<Future<String>> answers = new ArrayList<>();
    for (String input : inputs) {
      answers.add(coalescer.call(input));
    }
    return answers;
  }

  @Test
  @DisplayName("calls of one turn make one combined call, and each caller gets its own answer")
  void oneTurnOneCall(Vertx vertx) {
    Coalescer<String, String> coalescer = coalescer(null);
    List<Future<String>> answers = inOneTurn(vertx, () -> ask(coalescer, "a", "b", "c"));
    assertThat(answers.stream().map(answer -> await(answer)).toList()).containsExactly("a!", "b!", "c!");
    assertThat(together).containsExactly(List.of("a", "b", "c"));
    assertThat(alone).isEmpty();
  }

  @Test
  @DisplayName("a lone call is made alone, and calls of later turns are not held back for earlier ones")
  void loneCall(Vertx vertx) {
    Coalescer<String, String> coalescer = coalescer(null);
    assertThat(await(inOneTurn(vertx, () -> coalescer.call("a")))).isEqualTo("a!");
    assertThat(await(inOneTurn(vertx, () -> coalescer.call("b")))).isEqualTo("b!");
    assertThat(alone).containsExactly("a", "b");
    assertThat(together).isEmpty();
  }

  @Test
  @DisplayName("a combined call refused for good is made again input by input: only the bad input fails")
  void refusalIsSeparated(Vertx vertx) {
    Coalescer<String, String> coalescer =
        coalescer(ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "one input was refused"));
    List<Future<String>> answers = inOneTurn(vertx, () -> ask(coalescer, "a", "bad", "c"));
    assertThat(await(answers.get(0))).isEqualTo("a!");
    assertThat(await(answers.get(2))).isEqualTo("c!");
    await(answers.get(1).transform(Future::succeededFuture));
    assertThat(answers.get(1).failed()).isTrue();
    assertThat(alone).containsExactlyInAnyOrder("a", "bad", "c");
  }

  @Test
  @DisplayName("a combined call that failed for everyone (unreachable, out of time) fails every caller, once")
  void sharedFailure(Vertx vertx) {
    for (ServiceException failure : List.of(new ServiceException(ErrorCode.CONNECTION_ERROR, "cannot reach it"),
        new ServiceException(ErrorCode.TIMEOUT, "too late"))) {
      Coalescer<String, String> coalescer = coalescer(failure);
      List<Future<String>> answers = inOneTurn(vertx, () -> ask(coalescer, "a", "b"));
      for (Future<String> answer : answers) {
        await(answer.transform(Future::succeededFuture));
        assertThat(answer.cause()).isSameAs(failure);
      }
    }
    assertThat(alone).isEmpty();
    assertThat(together).hasSize(2);
  }

  @Test
  @DisplayName("a caller off the event loop (a CLI's main thread) calls alone, at once")
  void offTheLoop() {
    Coalescer<String, String> coalescer = coalescer(null);
    assertThat(await(coalescer.call("a"))).isEqualTo("a!");
    assertThat(alone).containsExactly("a");
  }
}
