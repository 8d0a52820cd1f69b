package dev.ragretrieval.search.qdrant;

import io.netty.util.NetUtil;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Qdrant servers behind one host name, taken in turn. A headless Kubernetes Service resolves
 * to every pod; one long-lived HTTP/2 connection to the name would pin all calls to one pod, so
 * each resolved address gets its own connection and calls rotate over them. Addresses are looked
 * up again periodically and soon after a connection failure (pods move). An IP literal is used as
 * it is; with TLS the name itself is used, because certificate checks need it.
 */
final class QdrantEndpoints {

  private static final Logger LOG = LoggerFactory.getLogger(QdrantEndpoints.class);
  private static final long MIN_REFRESH_GAP_MS = 1000;

  private final Vertx vertx;
  private final String host;
  private final int port;
  private final HostResolver resolver;
  private final boolean resolve;
  private final AtomicInteger turn = new AtomicInteger();
  private final AtomicLong lastFailureRefresh = new AtomicLong();
  private final Future<Void> firstLookup;
  private volatile List<SocketAddress> servers;
  private final long timerId;

  QdrantEndpoints(Vertx vertx, String host, int port, boolean tls, HostResolver resolver, Duration refreshEvery) {
    this.vertx = vertx;
    this.host = host;
    this.port = port;
    this.resolver = resolver;
    this.servers = List.of(SocketAddress.inetSocketAddress(port, host));
    this.resolve = !tls && !NetUtil.isValidIpV4Address(host) && !NetUtil.isValidIpV6Address(host);
    if (resolve) {
      firstLookup = refresh();
      timerId = vertx.setPeriodic(refreshEvery.toMillis(), id -> refresh());
    } else {
      firstLookup = Future.succeededFuture();
      timerId = -1;
    }
  }

  /** The next server in turn; the first call waits for the first look-up. */
  Future<SocketAddress> next() {
    if (firstLookup.isComplete()) {
      return Future.succeededFuture(pick());
    }
    return firstLookup.transform(ignored -> Future.succeededFuture(pick()));
  }

  /** A connection failed: the addresses may be stale, so look again (at most once a second). */
  void connectionFailed() {
    long now = System.currentTimeMillis();
    long last = lastFailureRefresh.get();
    if (resolve && now - last >= MIN_REFRESH_GAP_MS && lastFailureRefresh.compareAndSet(last, now)) {
      refresh();
    }
  }

  void close() {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
    }
  }

  private SocketAddress pick() {
    List<SocketAddress> current = servers;
    return current.get(Math.floorMod(turn.getAndIncrement(), current.size()));
  }

  private Future<Void> refresh() {
    Promise<Void> done = Promise.promise();
    vertx.executeBlocking(() -> resolver.resolve(host), false).onComplete(result -> {
      if (result.succeeded() && !result.result().isEmpty()) {
        // sorted, so an unchanged DNS answer in another order changes nothing
        List<SocketAddress> found = result.result().stream()
            .map(InetAddress::getHostAddress)
            .distinct()
            .sorted(Comparator.naturalOrder())
            .map(ip -> SocketAddress.inetSocketAddress(port, ip))
            .toList();
        if (!found.equals(servers)) {
          LOG.info("Qdrant host {} resolves to {} address(es)", host, found.size());
          servers = found;
        }
      } else {
        // keep what we had: the name itself, or the last good answer
        LOG.warn("could not resolve Qdrant host {}: {}", host,
            result.failed() ? result.cause().toString() : "no addresses");
      }
      done.complete();
    });
    return done.future();
  }
}
