package dev.ragretrieval.upstream;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.tracing.Spans;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Upstream calls asked for on one event loop during one turn of it, sent as one call. Under load
 * an event loop reads many requests in one pass over its ready connections, and each would make
 * its own embedding call and its own search; the upstreams take many inputs per call (Cohere up
 * to 96 texts, Qdrant's QueryBatch), and what a call costs here (HTTP and gRPC framing, headers,
 * system calls, the retry and circuit machinery) is mostly per call, not per input. A call is
 * only queued until the end of the current turn (a task after those already queued), so a lone
 * request waits for nothing, and one turn's calls go out together. While a call of the same loop
 * is already out (the loop is under load), a new input waits up to a short window for others.
 * A window ends when the loop next comes to a coalescer after its length, or, on a loop with
 * nothing else to do, at most half a length later ({@link CoalescingWindows}).
 *
 * <p>A turn with one call makes it {@link #alone} exactly as without this class. A combined call
 * that fails in a way one input could have caused ({@code separable}: a permanent refusal) is
 * made again input by input, so one bad input fails only its own request; any other failure (the
 * upstream unreachable, out of time, rate-limiting) is every input's. With tracing on, nothing is
 * combined: each request's trace keeps its own upstream spans.
 *
 * @param <I> one caller's input
 * @param <O> its answer
 */
public final class Coalescer<I, O> {

  private final Function<I, Future<O>> alone;
  private final Function<List<I>, Future<List<O>>> together;
  private final Predicate<ServiceException> separable;
  private final long windowMillis;
  private final EventLoopLocal<Turn<I, O>> turns = new EventLoopLocal<>(Turn::new);

  /**
   * @param alone one input's call
   * @param together the call for two or more inputs; its answers in input order
   * @param separable failures of a combined call to retry input by input
   * @param window how long an input may wait for others while a call of this loop is in flight
   *     (RAG_COALESCE_WINDOW_MS); zero: only the current turn's inputs go together
   */
  public Coalescer(Function<I, Future<O>> alone, Function<List<I>, Future<List<O>>> together,
      Predicate<ServiceException> separable, Duration window) {
    this.alone = alone;
    this.together = together;
    this.separable = separable;
    this.windowMillis = window.toMillis();
  }

  /**
   * A refusal of the whole call that one input may have caused (a permanent refusal, a collection
   * not found), as opposed to the upstream being slow, unreachable or rate-limiting.
   */
  public static boolean permanentRefusal(ServiceException failure) {
    return !failure.retryable() && failure.code() != ErrorCode.TIMEOUT && failure.code() != ErrorCode.OVERLOADED;
  }

  /** {@code input}'s answer: from a call made at the end of this turn of the caller's event loop. */
  public Future<O> call(I input) {
    Context context = Vertx.currentContext();
    if (context == null || !Context.isOnEventLoopThread() || Spans.enabled()) {
      return safely(alone, input);
    }
    CoalescingWindows.flushEnded();
    Turn<I, O> turn = turns.get();
    Promise<O> answer = Promise.promise();
    if (turn.waiting.isEmpty()) {
      // under load (a call already out) waiting a little gathers more; a lone caller waits for nothing
      if (windowMillis > 0 && turn.inFlight > 0) {
        CoalescingWindows.open(windowMillis, context, () -> flush(turn));
      } else {
        context.runOnContext(ignored -> flush(turn));
      }
    }
    turn.waiting.add(new Waiting<>(input, answer));
    return answer.future();
  }

  private void flush(Turn<I, O> turn) {
    List<Waiting<I, O>> batch = turn.waiting;
    turn.waiting = new ArrayList<>();
    turn.inFlight++;
    if (batch.size() == 1) {
      Waiting<I, O> only = batch.get(0);
      safely(alone, only.input).onComplete(done -> {
        turn.inFlight--;
        CoalescingWindows.flushEnded();
        only.answer.handle(done);
      });
      return;
    }
    List<I> inputs = new ArrayList<>(batch.size());
    for (Waiting<I, O> waiting : batch) {
      inputs.add(waiting.input);
    }
    safely(together, inputs).onComplete(done -> {
      turn.inFlight--;
      CoalescingWindows.flushEnded();
      if (done.succeeded() && done.result().size() == batch.size()) {
        for (int i = 0; i < batch.size(); i++) {
          batch.get(i).answer.complete(done.result().get(i));
        }
        return;
      }
      ServiceException failure = done.succeeded()
          ? ServiceException.internal(new IllegalStateException(done.result().size() + " answers for " + batch.size()))
          : ServiceException.from(done.cause());
      for (Waiting<I, O> waiting : batch) {
        if (separable.test(failure)) {
          safely(alone, waiting.input).onComplete(waiting.answer);
        } else {
          waiting.answer.fail(failure);
        }
      }
    });
  }

  /** A call that throws instead of failing its future still answers. */
  private static <A, B> Future<B> safely(Function<A, Future<B>> call, A input) {
    try {
      return call.apply(input);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private record Waiting<I, O>(I input, Promise<O> answer) {}

  /**
   * One event loop's waiting inputs and its calls in flight; touched only on that loop (a call's
   * answer is read on the loop that made it).
   */
  private static final class Turn<I, O> {
    List<Waiting<I, O>> waiting = new ArrayList<>();
    int inFlight;
  }
}
