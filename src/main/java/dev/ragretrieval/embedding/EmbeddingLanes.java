package dev.ragretrieval.embedding;

import io.vertx.core.Context;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The event loops that have an {@link EmbeddingVerticle} of their own, each listening on a lane
 * address of that loop besides {@link EmbeddingVerticle#ADDRESS}. The event bus gives a message
 * to any consumer of an address in turn, whatever loop the sender is on; a sender that asks its
 * own loop's lane is answered on its loop, with no hand-over to another thread and back.
 */
public final class EmbeddingLanes {

  private static final EmbeddingLanes NONE = new EmbeddingLanes();

  private final Map<Thread, String> addresses = new ConcurrentHashMap<>();

  /** Lanes for verticles deployed with {@link EmbeddingVerticle#deployPerEventLoop}; empty until then. */
  public static EmbeddingLanes create() {
    return new EmbeddingLanes();
  }

  /** No lanes: every caller asks {@link EmbeddingVerticle#ADDRESS}. */
  static EmbeddingLanes none() {
    return NONE;
  }

  /** The address a caller on the current thread asks: its loop's lane, else the shared one. */
  String address() {
    if (!addresses.isEmpty() && Context.isOnEventLoopThread()) {
      String lane = addresses.get(Thread.currentThread());
      if (lane != null) {
        return lane;
      }
    }
    return EmbeddingVerticle.ADDRESS;
  }

  /** The lane address of the current thread, a verticle's event loop; known to callers once {@link #open}ed. */
  static String laneOfCurrentThread() {
    return EmbeddingVerticle.ADDRESS + "@" + Thread.currentThread().getName();
  }

  void open(Thread loop, String address) {
    addresses.put(loop, address);
  }

  /** Callers on {@code loop} go back to the shared address (another instance may still serve it). */
  void close(Thread loop) {
    addresses.remove(loop);
  }
}
