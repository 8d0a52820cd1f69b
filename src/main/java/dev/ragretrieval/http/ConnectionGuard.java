package dev.ragretrieval.http;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Connection limits, so that no client can hold the server's sockets:
 * <ul>
 *   <li>a new connection must deliver its first request head within the header timeout (ends
 *       slowloris; vert.x has no header-read timeout of its own);</li>
 *   <li>between requests a connection may stay idle for the idle timeout, which also bounds the
 *       head of every later request on it;</li>
 *   <li>at most {@code maxConnections} are open: a new one beyond it closes the connection that has
 *       been idle (or waiting for its head) the longest, so a flood of idle or slow connections
 *       cannot lock out new clients such as the liveness probe;</li>
 *   <li>when every connection is busy with a request, the next {@code connectionReserve} get one
 *       answer each, /health/* as usual and 503 OVERLOADED for anything else, and are closed;
 *       beyond those a new connection is closed before anything is read.</li>
 * </ul>
 * A request in progress is never cut by these timers: the request deadline bounds it.
 * One guard serves every HTTP verticle instance, so the limits count all connections of the
 * process; each connection's state is touched on its own event loop, and a connection evicted
 * from another event loop is closed on its own.
 */
final class ConnectionGuard {

  private final Vertx vertx;
  private final AppConfig.Edge limits;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<HttpConnection, Tracked> connections = new ConcurrentHashMap<>();
  // connections without a request in progress, longest idle first: the ones closed to make room
  private final Set<Tracked> idle = new LinkedHashSet<>();
  private final MeterRegistry registry;
  private final RagMetrics metrics;

  ConnectionGuard(Vertx vertx, AppConfig.Edge limits, RagMetrics metrics) {
    this.vertx = vertx;
    this.metrics = metrics;
    this.registry = metrics.registry();
    this.limits = limits;
    Gauge.builder("rag_http_connections_open", open, AtomicInteger::get)
        .description("HTTP connections open now")
        .register(registry);
  }

  /** The server's connection handler. */
  void connected(HttpConnection connection) {
    int count = open.incrementAndGet();
    Tracked tracked = new Tracked(connection);
    connections.put(connection, tracked);
    connection.closeHandler(closed -> {
      open.decrementAndGet();
      connections.remove(connection);
      tracked.forget();
    });
    if (count > limits.maxConnections()) {
      Tracked longestIdle = longestIdle();
      if (longestIdle != null) {
        // the newcomer takes the freed place: a served one, or one of the reserve's
        tracked.overCap = longestIdle.overCap;
        longestIdle.closeOnItsLoop("evicted");
      } else if (count > limits.maxConnections() + limits.connectionReserve()) {
        tracked.close("refused");
        return;
      } else {
        tracked.overCap = true;
      }
    }
    tracked.arm(limits.headerTimeout(), "header_timeout");
  }

  /** Wraps the server's request handler: a head has arrived, so the connection's timer stops. */
  Handler<HttpServerRequest> requests(Handler<HttpServerRequest> next) {
    return request -> {
      Tracked tracked = connections.get(request.connection());
      if (tracked != null) {
        tracked.started();
        if (tracked.overCap && !request.path().startsWith("/health/")) {
          RawErrors.send(request, new ServiceException(ErrorCode.OVERLOADED,
              "too many open connections; retry shortly", null, 1), metrics);
          return;
        }
      }
      next.handle(request);
    };
  }

  /** The router's first handler: when the response is over, the connection's idle time starts. */
  void track(RoutingContext ctx) {
    Tracked tracked = connections.get(ctx.request().connection());
    if (tracked != null) {
      ctx.addEndHandler(done -> tracked.ended());
    }
    ctx.next();
  }

  private synchronized Tracked longestIdle() {
    Iterator<Tracked> oldest = idle.iterator();
    if (!oldest.hasNext()) {
      return null;
    }
    Tracked tracked = oldest.next();
    oldest.remove();
    return tracked;
  }

  private synchronized void idle(Tracked tracked, boolean isIdle) {
    if (isIdle) {
      idle.add(tracked);
    } else {
      idle.remove(tracked);
    }
  }

  private void closed(String reason) {
    Counter.builder("rag_http_connections_closed_total")
        .description("HTTP connections the server closed to protect itself, by reason")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  /**
   * One connection's state; touched only on its event loop. Its header or idle deadline moves
   * with every request, but its timer is not re-set each time: a timer that fires early finds
   * the deadline moved and waits out the rest. Setting and cancelling a Vert.x timer per request
   * cost more than the request's routing.
   */
  private final class Tracked {
    private static final long DISARMED = Long.MAX_VALUE;

    private final HttpConnection connection;
    private final Context context = Vertx.currentContext();
    private volatile boolean overCap;
    private int active;
    private long deadline = DISARMED;
    private String reason;
    private long timer = -1;
    private long timerFiresAt;

    Tracked(HttpConnection connection) {
      this.connection = connection;
    }

    void started() {
      active++;
      disarm();
    }

    void ended() {
      active--;
      if (active > 0) {
        return;
      }
      if (overCap) {
        connection.close();
      } else {
        arm(limits.idleTimeout(), "idle_timeout");
      }
    }

    void arm(Duration timeout, String reason) {
      idle(this, true);
      this.reason = reason;
      this.deadline = now() + timeout.toMillis();
      if (timer >= 0 && timerFiresAt > deadline) {
        vertx.cancelTimer(timer); // only ever true for a shorter timeout than the pending one
        timer = -1;
      }
      if (timer < 0) {
        schedule(timeout.toMillis());
      }
    }

    void disarm() {
      idle(this, false);
      deadline = DISARMED;
    }

    /** The connection has gone: its timer goes too. */
    void forget() {
      disarm();
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }

    private void schedule(long delay) {
      timerFiresAt = now() + delay;
      timer = vertx.setTimer(Math.max(1, delay), id -> {
        timer = -1;
        if (deadline == DISARMED) {
          return; // a request is under way; the next arm starts a timer
        }
        long left = deadline - now();
        if (left > 0) {
          schedule(left);
        } else {
          close(reason);
        }
      });
    }

    /** Monotonic milliseconds: a wall-clock step must not close or keep connections. */
    private static long now() {
      return System.nanoTime() / 1_000_000;
    }

    /** Eviction: called on the newcomer's event loop, which may be another one. */
    void closeOnItsLoop(String reason) {
      if (context == null || context == Vertx.currentContext()) {
        close(reason);
      } else {
        // a request that began on it in the meantime is not cut: the cap is over by one until it ends
        context.runOnContext(v -> {
          if (active == 0) {
            close(reason);
          }
        });
      }
    }

    void close(String reason) {
      forget();
      closed(reason);
      connection.close();
    }
  }
}
