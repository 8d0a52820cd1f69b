package dev.ragretrieval.upstream;

import io.vertx.core.Context;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Where {@link Coalescer}'s windows end. A window is ended by its own event loop, the first time
 * that loop comes back to any coalescer (a new input, an answer) after the window's length: under
 * load that is soon, and it takes no other thread. A loop with nothing else to do has a backstop: a
 * timer of that loop, due half a length after the window should have ended (in whole milliseconds,
 * rounded down), which the loop cancels when it ends the window itself. So a window lasts its
 * length, and at most half as long again.
 *
 * <p>Why the timer is due that late. A Netty NIO loop with a timer due within half a millisecond
 * polls without blocking until it is due ({@code NioIoHandler.select} rounds to whole
 * milliseconds). A timer at the window's end was due just when the loop was busiest: 10
 * non-blocking {@code epoll_wait} calls a question at 64 clients (bench/README.md, sixth pass).
 * Half a length later, a window of a busy loop has long been ended and its timer cancelled, so the
 * loop polls only in the rare case that it woke in that last half millisecond for something that
 * touched no coalescer. The thread that was the backstop from the sixth to the fifteenth pass woke
 * for most windows whether or not they had ended: about 4% of the service's CPU on the two-core
 * bench, with a futex call on the loop for many windows (sixteenth pass).
 */
final class CoalescingWindows {

  /**
   * Each event loop's open windows, touched only on that loop. A thread-local, not an
   * {@link EventLoopLocal}: this one is static, and an event loop's list goes with its thread.
   */
  private static final ThreadLocal<List<Window>> OPEN = ThreadLocal.withInitial(ArrayList::new);

  private CoalescingWindows() {}

  /** Opens a window on the calling event loop: {@code flush} runs on {@code context} once it ends. */
  static void open(long millis, Context context, Runnable flush) {
    Window window = new Window(context, flush, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis));
    // on an event loop, the timer is this loop's, and its handler runs here
    window.backstop = context.owner().setTimer(millis + millis / 2, ignored -> window.close());
    OPEN.get().add(window);
  }

  /**
   * On an event loop: hands the flush of each of this loop's windows that has ended to the loop,
   * as a task after those already queued (a task queued from the loop itself wakes nothing).
   */
  static void flushEnded() {
    if (!Context.isOnEventLoopThread()) {
      return; // windows open only on event loops; an answer completed elsewhere has none to end
    }
    List<Window> open = OPEN.get();
    if (open.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    for (Iterator<Window> it = open.iterator(); it.hasNext(); ) {
      Window window = it.next();
      if (window.closed) {
        it.remove();
      } else if (now - window.endsAt >= 0) {
        it.remove();
        window.context.owner().cancelTimer(window.backstop);
        window.close();
      }
    }
  }

  /** One window, touched only on its loop: ended once, by the loop or by its backstop timer. */
  private static final class Window {
    final Context context;
    final Runnable flush;
    final long endsAt;
    long backstop;
    boolean closed;

    Window(Context context, Runnable flush, long endsAt) {
      this.context = context;
      this.flush = flush;
      this.endsAt = endsAt;
    }

    void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        context.runOnContext(ignored -> flush.run());
      } catch (RejectedExecutionException gone) {
        // Vert.x was closed meanwhile: its requests went with it
      }
    }
  }
}
