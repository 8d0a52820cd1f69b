package dev.ragretrieval.upstream;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One {@code T} per event loop, made on first use from that loop: an upstream client per loop.
 * A Vert.x client's pool hands any caller whichever connection is free, and a connection lives on
 * the event loop that opened it, so a request served on one loop had its upstream answers read on
 * another and handed back across threads (a wake-up and a queue hop each way). With a client per
 * loop, a call's connection is always on the caller's loop.
 *
 * <p>A caller off every event loop (a worker thread, a CLI's main thread) is moved onto one loop,
 * always the same, by {@link #call}. Vert.x 5.0.7's HTTP client, asked from a thread outside
 * Vert.x, now and then reads an answer and never hands its body to the handler set in the
 * response's callback: the call then waits out its whole timeout. Against freshly started
 * servers, 22 of 9,000 such exchanges started on a main thread got no body; none of 5,700 started
 * on a context. The gRPC client showed none (6,000 calls from a main thread to fresh servers);
 * its calls take the same way anyway, so that no client is called off a loop.
 */
public final class EventLoopLocal<T> {

  private final Vertx vertx;
  private final Supplier<T> factory;
  private final Map<Thread, T> byLoop = new ConcurrentHashMap<>();
  private volatile Context offLoopCallers;

  /** For {@link #get()} only: instances of state that callers use on their own loop. */
  public EventLoopLocal(Supplier<T> factory) {
    this(null, factory);
  }

  /** For {@link #call}, which moves a caller off every loop onto one of {@code vertx}'s. */
  public EventLoopLocal(Vertx vertx, Supplier<T> factory) {
    this.vertx = vertx;
    this.factory = factory;
  }

  /** The calling event loop's instance, made now if it has none. Only an event loop may ask. */
  public T get() {
    if (!Context.isOnEventLoopThread()) {
      throw new IllegalStateException("EventLoopLocal.get() off an event loop, on " + Thread.currentThread().getName());
    }
    Thread loop = Thread.currentThread();
    T mine = byLoop.get(loop);
    return mine != null ? mine : byLoop.computeIfAbsent(loop, ignored -> factory.get());
  }

  /**
   * {@code use} applied to the calling loop's instance, at once. Off every loop, it runs later on
   * the one loop kept for such callers, with that loop's instance; its future completes there.
   */
  public <R> Future<R> call(Function<T, Future<R>> use) {
    if (Context.isOnEventLoopThread()) {
      return use.apply(get());
    }
    Promise<R> done = Promise.promise();
    offLoopContext().runOnContext(ignored -> {
      try {
        use.apply(get()).onComplete(done);
      } catch (RuntimeException e) {
        done.fail(e);
      }
    });
    return done.future();
  }

  private Context offLoopContext() {
    Context context = offLoopCallers;
    if (context == null) {
      if (vertx == null) {
        throw new IllegalStateException("EventLoopLocal.call() needs the Vertx it was made with");
      }
      synchronized (this) {
        context = offLoopCallers;
        if (context == null) {
          // asked off every loop, getOrCreateContext makes a new event-loop context: this one is kept
          context = vertx.getOrCreateContext();
          offLoopCallers = context;
        }
      }
    }
    return context;
  }

  /** Every instance made so far (to close them). */
  public List<T> all() {
    return new ArrayList<>(byLoop.values());
  }
}
