package dev.ragretrieval.upstream;

import io.vertx.core.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One {@code T} per event loop, made on first use from that loop: an upstream client per loop.
 * A Vert.x client's pool hands any caller whichever connection is free, and a connection lives on
 * the event loop that opened it, so a request served on one loop had its upstream answers read on
 * another and handed back across threads (a wake-up and a queue hop each way). With a client per
 * loop, a call's connection is always on the caller's loop. Callers off an event loop (worker
 * threads, a CLI's main thread) share one more instance.
 */
public final class EventLoopLocal<T> {

  private final Supplier<T> factory;
  private final Map<Thread, T> byLoop = new ConcurrentHashMap<>();
  private final Object offLoopLock = new Object();
  private volatile T offLoop;

  public EventLoopLocal(Supplier<T> factory) {
    this.factory = factory;
  }

  /** The calling event loop's instance (made now if it has none), or the one for callers off a loop. */
  public T get() {
    if (Context.isOnEventLoopThread()) {
      Thread loop = Thread.currentThread();
      T mine = byLoop.get(loop);
      return mine != null ? mine : byLoop.computeIfAbsent(loop, ignored -> factory.get());
    }
    T shared = offLoop;
    if (shared == null) {
      synchronized (offLoopLock) {
        shared = offLoop;
        if (shared == null) {
          shared = factory.get();
          offLoop = shared;
        }
      }
    }
    return shared;
  }

  /** Every instance made so far (to close them). */
  public List<T> all() {
    List<T> all = new ArrayList<>(byLoop.values());
    T shared = offLoop;
    if (shared != null) {
      all.add(shared);
    }
    return all;
  }
}
