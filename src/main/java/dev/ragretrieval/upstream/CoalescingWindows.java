package dev.ragretrieval.upstream;

import io.vertx.core.Context;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Where {@link Coalescer}'s windows end. A window is ended by its own event loop, the first time
 * that loop comes back to any coalescer (a new input, an answer) after the window's length: under
 * load that is soon, and it takes no timer and no other thread. A loop with nothing else to do has
 * a backstop: a daemon thread that ends a window still open half a length after it should have
 * ended, by handing its flush to the loop as an ordinary task. So a window lasts its length, and at
 * most half as long again.
 *
 * <p>Why not a timer per window. A Netty NIO loop with a timer due within half a millisecond polls
 * without blocking until it is due ({@code NioIoHandler.select} rounds to whole milliseconds): 10
 * non-blocking {@code epoll_wait} calls a question at 64 clients (bench/HISTORY.md, sixth pass).
 * A timer thread told of every window (the sixth to tenth passes) cost a wake-up of that thread
 * for most windows, and one of the loop for every window: on this project's two-core bench about
 * 5% of the service's CPU in that thread alone, and its futex and eventfd calls on the loops.
 * Here a loop wakes the backstop only when it has nothing to watch (a new window ends after those
 * it watches, all being the same length), and the backstop wakes a loop only for a window the loop
 * has not ended itself. Nor is the backstop a timer of the loop due half a length after the end,
 * cancelled when the loop ends the window: a loop going to sleep with that timer next woke before
 * it was due and polled the rest of the way, 6 {@code epoll_wait} calls a question instead of
 * under 1 (bench/HISTORY.md, sixteenth pass).
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
    long length = TimeUnit.MILLISECONDS.toNanos(millis);
    long now = System.nanoTime();
    Window window = new Window(context, flush, now + length, now + length + length / 2);
    OPEN.get().add(window);
    Backstop.watch(window);
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
        window.close();
      }
    }
  }

  /** {@code task} as a task of {@code context}'s loop, after those already queued. */
  private static void onLoop(Context context, Runnable task) {
    try {
      context.runOnContext(ignored -> task.run());
    } catch (RejectedExecutionException gone) {
      // Vert.x was closed meanwhile: its requests went with it
    }
  }

  /** One window: ended once, by its loop or by the backstop through its loop. */
  private static final class Window {
    final Context context;
    final Runnable flush;
    final long endsAt;
    final long backstopAt;
    /** Written only on the window's loop; the backstop reads it to skip windows already ended. */
    volatile boolean closed;

    Window(Context context, Runnable flush, long endsAt, long backstopAt) {
      this.context = context;
      this.flush = flush;
      this.endsAt = endsAt;
      this.backstopAt = backstopAt;
    }

    /** On the window's loop. */
    void close() {
      if (closed) {
        return;
      }
      closed = true;
      onLoop(context, flush);
    }
  }

  /**
   * The daemon thread that ends windows their loop did not. It sleeps until the earliest backstop
   * time of the windows it watches; a new window's time is later than that (windows of one
   * length), so it does not wake the thread. With nothing to watch, it sleeps until the next window
   * wakes it. (Looking again every millisecond instead, so that no window need wake it, cost more:
   * bench/HISTORY.md, eleventh pass.)
   */
  private static final class Backstop {
    private static final Queue<Window> WATCHED = new ConcurrentLinkedQueue<>();
    private static final Thread THREAD = start();
    /** When the thread wakes next (System.nanoTime); read by {@link #watch} to decide on waking it. */
    private static volatile long wakesAt;
    /** The thread sleeps until told: it had nothing to watch. */
    private static volatile boolean idle;

    private static Thread start() {
      Thread thread = new Thread(Backstop::run, "rag-coalesce-window");
      thread.setDaemon(true);
      thread.start();
      return thread;
    }

    static void watch(Window window) {
      WATCHED.add(window);
      // read after the add: either this sees the time the thread published, or the thread's scan
      // after publishing it sees this window
      if (idle || window.backstopAt - wakesAt < 0) {
        LockSupport.unpark(THREAD);
      }
    }

    private static void run() {
      while (true) {
        long next = scan();
        if (!watching) {
          idle = true;
          if (WATCHED.isEmpty()) {
            LockSupport.park(Backstop.class);
          }
          idle = false;
          continue;
        }
        wakesAt = next;
        // a window added before the time was published, and earlier than it, was not seen above
        long again = scan();
        if (!watching || again != next) {
          continue;
        }
        LockSupport.parkNanos(Backstop.class, next - System.nanoTime());
      }
    }

    /** Whether the last {@link #scan} left a window to watch (only the thread scans). */
    private static boolean watching;

    /**
     * Ends the windows past their backstop time and drops those already ended; the earliest backstop
     * time left, if {@link #watching}.
     */
    private static long scan() {
      long now = System.nanoTime();
      long earliest = 0;
      watching = false;
      for (Iterator<Window> it = WATCHED.iterator(); it.hasNext(); ) {
        Window window = it.next();
        if (window.closed) {
          it.remove();
        } else if (now - window.backstopAt >= 0) {
          it.remove();
          onLoop(window.context, window::close);
        } else if (!watching || window.backstopAt - earliest < 0) {
          earliest = window.backstopAt;
          watching = true;
        }
      }
      return earliest;
    }
  }
}
