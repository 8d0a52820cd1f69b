package dev.ragretrieval.upstream;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
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
  /** The thread each combined call was made on. */
  private final List<Thread> togetherOn = new CopyOnWriteArrayList<>();

  /** Answered when the test says so: a call still in flight. */
  private final Promise<String> slow = Promise.promise();

  /** Answers "x!" for "x"; "bad" alone fails as a permanent refusal; "slow" alone answers when {@link #slow} does. */
  private Coalescer<String, String> coalescer(ServiceException togetherFails, Duration window) {
    return new Coalescer<>(input -> {
      alone.add(input);
      return switch (input) {
        case "bad" -> Future.failedFuture(ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "refused"));
        case "slow" -> slow.future();
        default -> Future.succeededFuture(input + "!");
      };
    }, inputs -> {
      together.add(List.copyOf(inputs));
      togetherOn.add(Thread.currentThread());
      return togetherFails != null ? Future.failedFuture(togetherFails)
          : Future.succeededFuture(inputs.stream().map(input -> input + "!").toList());
    }, Coalescer::permanentRefusal, window);
  }

  private Coalescer<String, String> coalescer(ServiceException togetherFails) {
    return coalescer(togetherFails, Duration.ZERO);
  }

  /** Runs {@code calls} in one task on an event loop: one turn. */
  private static <T> T inOneTurn(Vertx vertx, Supplier<T> calls) {
    return inOneTurn(vertx, vertx.getOrCreateContext(), calls);
  }

  private static <T> T inOneTurn(Vertx vertx, io.vertx.core.Context loop, Supplier<T> calls) {
    Promise<T> made = Promise.promise();
    loop.runOnContext(ignored -> made.complete(calls.get()));
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
  @DisplayName("while a call of the loop is in flight, calls of later turns wait out the window and go together, "
      + "ended by the backstop on a loop with nothing else to do")
  void windowUnderLoad(Vertx vertx) {
    Coalescer<String, String> coalescer = coalescer(null, Duration.ofMillis(200));
    io.vertx.core.Context loop = vertx.getOrCreateContext();
    Future<String> first = inOneTurn(vertx, loop, () -> coalescer.call("slow"));
    Thread loopThread = inOneTurn(vertx, loop, Thread::currentThread);
    long started = System.nanoTime();
    Future<String> second = inOneTurn(vertx, loop, () -> coalescer.call("b"));
    Future<String> third = inOneTurn(vertx, loop, () -> coalescer.call("c"));

    assertThat(await(second)).isEqualTo("b!");
    assertThat(await(third)).isEqualTo("c!");
    assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
    assertThat(together).containsExactly(List.of("b", "c"));
    // the backstop ended the window off the loop, but the call is made on it, as every call of this loop is
    assertThat(togetherOn).containsExactly(loopThread);
    assertThat(first.isComplete()).isFalse();
    slow.complete("slow!");
    assertThat(await(first)).isEqualTo("slow!");
    // nothing in flight any more: a lone call goes at the end of its turn, without the window
    long lone = System.nanoTime();
    assertThat(await(inOneTurn(vertx, loop, () -> coalescer.call("d")))).isEqualTo("d!");
    assertThat(System.nanoTime() - lone).isLessThan(Duration.ofMillis(200).toNanos());
    assertThat(alone).containsExactly("slow", "d");
  }

  @Test
  @DisplayName("a window that has ended goes when its loop next comes to the coalescer, without waiting for the backstop")
  void windowEndsOnItsLoop(Vertx vertx) throws InterruptedException {
    Coalescer<String, String> coalescer = coalescer(null, Duration.ofMillis(600));
    io.vertx.core.Context loop = vertx.getOrCreateContext();
    Future<String> first = inOneTurn(vertx, loop, () -> coalescer.call("slow"));
    long opened = System.nanoTime();
    Future<String> second = inOneTurn(vertx, loop, () -> coalescer.call("b"));
    // past the window's length, well before its backstop (half a length later)
    sleepUntil(opened + Duration.ofMillis(620).toNanos());
    assertThat(second.isComplete()).isFalse();
    Future<String> third = inOneTurn(vertx, loop, () -> coalescer.call("c"));

    assertThat(await(second)).isEqualTo("b!");
    assertThat(await(third)).isEqualTo("c!");
    // the window ended at the next call, which still joined it; a timer ending it at 600 ms would
    // have sent "b" alone and opened a new window for "c"
    assertThat(together).containsExactly(List.of("b", "c"));
    slow.complete("slow!");
    assertThat(await(first)).isEqualTo("slow!");
  }

  @Test
  @DisplayName("another coalescer's call on the same loop ends a window that has ended too")
  void windowEndsAtAnyCoalescer(Vertx vertx) throws InterruptedException {
    Coalescer<String, String> waiting = coalescer(null, Duration.ofMillis(600));
    Coalescer<String, String> other = coalescer(null, Duration.ofMillis(600));
    io.vertx.core.Context loop = vertx.getOrCreateContext();
    Future<String> first = inOneTurn(vertx, loop, () -> waiting.call("slow"));
    long opened = System.nanoTime();
    Future<String> second = inOneTurn(vertx, loop, () -> waiting.call("b"));
    sleepUntil(opened + Duration.ofMillis(620).toNanos());
    assertThat(second.isComplete()).isFalse();
    assertThat(await(inOneTurn(vertx, loop, () -> other.call("x")))).isEqualTo("x!");
    // the flush was queued on the loop by that call, ahead of this task: "b" has gone
    assertThat(inOneTurn(vertx, loop, () -> alone.contains("b"))).isTrue();
    assertThat(await(second)).isEqualTo("b!");
    slow.complete("slow!");
    assertThat(await(first)).isEqualTo("slow!");
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      Thread.sleep(Math.max(1, left / 1_000_000));
    }
  }

  @Test
  @DisplayName("a caller off the event loop (a CLI's main thread) calls alone, at once")
  void offTheLoop() {
    Coalescer<String, String> coalescer = coalescer(null);
    assertThat(await(coalescer.call("a"))).isEqualTo("a!");
    assertThat(alone).containsExactly("a");
  }
}
