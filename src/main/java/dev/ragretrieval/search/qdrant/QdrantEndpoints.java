package dev.ragretrieval.search.qdrant;

import io.netty.util.NetUtil;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Qdrant servers behind one host name, taken in turn. A headless Kubernetes Service resolves
 * to every pod; one long-lived HTTP/2 connection to the name would pin all calls to one pod, so
 * each resolved address gets its own connection and calls rotate over them.
 *
 * <p>Each address keeps its own health: one that cannot be reached leaves the rotation and is
 * probed in the background until it answers, so a dead node costs at most the calls already on
 * their way to it. When every address is out, calls go to all of them again (one of them may be
 * back before its probe says so, and the circuit breaker then sees the cluster's real state).
 * Addresses are looked up again every resolve interval and soon after a connection failure,
 * because pods come back with new addresses. An IP literal is used as it is; with TLS the name
 * itself is used, because certificate checks need it.
 *
 * <p>A node can also be up and slow: one just restarted accepts calls and holds them for seconds
 * while it catches up. The channel then sends a read to another node as well, and tells this class
 * which node {@linkplain #holding holds} a call: calls pass it over until it has answered. A node
 * that leaves a call unanswered to its deadline and then a probe too is {@linkplain #unanswered
 * taken out} until a probe answers.
 */
final class QdrantEndpoints {

  private static final Logger LOG = LoggerFactory.getLogger(QdrantEndpoints.class);
  private static final long MIN_REFRESH_GAP_MS = 1000;
  private static final long HOLD_LOG_GAP_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** One address and whether calls may go to it. */
  private static final class Endpoint {
    final SocketAddress address;
    volatile boolean down;
    final AtomicBoolean probing = new AtomicBoolean();
    /** Calls it holds that were sent elsewhere too, not answered yet. */
    final AtomicInteger held = new AtomicInteger();
    /** When a hold was last logged (System.nanoTime; 0: never), and whether the current one was. */
    volatile long holdLoggedAt;
    volatile boolean holdLogged;

    Endpoint(SocketAddress address) {
      this.address = address;
    }
  }

  private final Vertx vertx;
  private final String host;
  private final int port;
  private final HostResolver resolver;
  private final boolean resolve;
  private final Duration probeEvery;
  private final AtomicInteger turn = new AtomicInteger();
  private final AtomicLong lastFailureRefresh = new AtomicLong();
  private final Future<Void> firstLookup;
  private final long resolveTimer;
  private final long probeTimer;
  private volatile List<Endpoint> servers;
  /** Answers (with anything) when the server at the address is up; set by the channel. */
  private volatile Function<SocketAddress, Future<?>> probe = address -> Future.succeededFuture();

  QdrantEndpoints(Vertx vertx, String host, int port, boolean tls, HostResolver resolver, Duration resolveEvery,
      Duration probeEvery) {
    this.vertx = vertx;
    this.host = host;
    this.port = port;
    this.resolver = resolver;
    this.probeEvery = probeEvery;
    this.servers = List.of(new Endpoint(SocketAddress.inetSocketAddress(port, host)));
    this.resolve = !tls && !NetUtil.isValidIpV4Address(host) && !NetUtil.isValidIpV6Address(host);
    if (resolve) {
      firstLookup = refresh();
      resolveTimer = vertx.setPeriodic(resolveEvery.toMillis(), id -> refresh());
    } else {
      firstLookup = Future.succeededFuture();
      resolveTimer = -1;
    }
    probeTimer = vertx.setPeriodic(probeEvery.toMillis(), id -> probeDown());
  }

  /** How an address is checked before it rejoins the rotation. */
  void probeWith(Function<SocketAddress, Future<?>> probe) {
    this.probe = probe;
  }

  /** The next server in turn that is not known to be down; the first call waits for the first look-up. */
  Future<SocketAddress> next() {
    if (firstLookup.isComplete()) {
      return Future.succeededFuture(pick(server -> true));
    }
    return firstLookup.transform(ignored -> Future.succeededFuture(pick(server -> true)));
  }

  /** Whether there is more than one address: only then can a call go elsewhere. */
  boolean several() {
    return servers.size() > 1;
  }

  /**
   * The server at {@code address} holds a call that went elsewhere too: until {@code answered}
   * completes (an answer, a failure or the call's deadline), calls go to the other servers up.
   */
  void holding(SocketAddress address, Future<?> answered) {
    for (Endpoint server : servers) {
      if (server.address.equals(address)) {
        long now = System.nanoTime();
        // a cluster slow everywhere starts and ends holds all the time: a line a minute per address
        if (server.held.getAndIncrement() == 0
            && (server.holdLoggedAt == 0 || now - server.holdLoggedAt >= HOLD_LOG_GAP_NANOS)) {
          server.holdLoggedAt = now;
          server.holdLogged = true;
          LOG.warn("Qdrant at {} holds a call unanswered; calls go to the other addresses until it answers", address);
        }
        answered.onComplete(done -> {
          if (server.held.decrementAndGet() == 0 && server.holdLogged) {
            server.holdLogged = false;
            // a node taken out meanwhile (its probe unanswered) has said so itself
            if (!server.down) {
              LOG.info("Qdrant at {} answered the call it held; it is back in the rotation", address);
            }
          }
        });
        return;
      }
    }
  }

  /** Another server than {@code tried}, for a second try of a call; null when there is no other. */
  SocketAddress other(SocketAddress tried) {
    return pick(server -> !server.address.equals(tried));
  }

  /**
   * The server at {@code address} could not be reached: it leaves the rotation until a probe gets
   * an answer, and the name is looked up again (at most once a second), as the pod may have moved.
   */
  void unreachable(SocketAddress address) {
    for (Endpoint server : servers) {
      if (server.address.equals(address) && !server.down) {
        server.down = true;
        LOG.warn("Qdrant at {} cannot be reached; it leaves the rotation and is probed every {} ms",
            address, probeEvery.toMillis());
      }
    }
    long now = System.nanoTime() / 1_000_000;
    long last = lastFailureRefresh.get();
    if (resolve && now - last >= MIN_REFRESH_GAP_MS && lastFailureRefresh.compareAndSet(last, now)) {
      refresh();
    }
  }

  /**
   * The server at {@code address} left a call unanswered for all of qdrant.timeout_ms. Either it is
   * stalled (a frozen machine, a stopped process: its connections stay open, so nothing else would
   * tell), or the call waited inside Qdrant on another node (a write waits for every replica). A
   * probe tells them apart: calls pass the server over while it runs, and if it gets no answer the
   * server leaves the rotation until a later probe does.
   */
  void unanswered(SocketAddress address) {
    for (Endpoint server : servers) {
      if (server.address.equals(address) && !server.down && server.probing.compareAndSet(false, true)) {
        Future<?> answered = probed(address);
        answered.onComplete(result -> {
          server.probing.set(false);
          if (result.failed() && !server.down) {
            server.down = true;
            LOG.warn("Qdrant at {} left a call unanswered for all of qdrant.timeout_ms and does not answer a probe;"
                + " it leaves the rotation and is probed every {} ms", address, probeEvery.toMillis());
          }
        });
        // passed over while the probe runs (this listener runs after the one above)
        holding(address, answered);
      }
    }
  }

  /** Each address, and whether it is in the rotation (true) or out of it (tests). */
  Map<SocketAddress, Boolean> health() {
    return servers.stream().collect(Collectors.toMap(s -> s.address, s -> !s.down, (a, b) -> a,
        java.util.LinkedHashMap::new));
  }

  void close() {
    if (resolveTimer >= 0) {
      vertx.cancelTimer(resolveTimer);
    }
    vertx.cancelTimer(probeTimer);
  }

  /**
   * In turn among the wanted servers that are up and hold no call; failing that, among those up;
   * when none is up, among all the wanted ones.
   */
  private SocketAddress pick(Predicate<Endpoint> wanted) {
    List<Endpoint> current = servers;
    List<Endpoint> free = new ArrayList<>(current.size());
    List<Endpoint> up = new ArrayList<>(current.size());
    List<Endpoint> any = new ArrayList<>(current.size());
    for (Endpoint server : current) {
      if (wanted.test(server)) {
        any.add(server);
        if (!server.down) {
          up.add(server);
          if (server.held.get() == 0) {
            free.add(server);
          }
        }
      }
    }
    List<Endpoint> from = !free.isEmpty() ? free : up.isEmpty() ? any : up;
    if (from.isEmpty()) {
      return null;
    }
    return from.get(Math.floorMod(turn.getAndIncrement(), from.size())).address;
  }

  private void probeDown() {
    for (Endpoint server : servers) {
      if (server.down && server.probing.compareAndSet(false, true)) {
        probed(server.address).onComplete(result -> {
          server.probing.set(false);
          if (result.succeeded() && server.down) {
            server.down = false;
            LOG.info("Qdrant at {} answers again; it rejoins the rotation", server.address);
          }
        });
      }
    }
  }

  /** The probe's answer; a probe that throws is a failed one. */
  private Future<?> probed(SocketAddress address) {
    try {
      return probe.apply(address);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private Future<Void> refresh() {
    Promise<Void> done = Promise.promise();
    Future<List<InetAddress>> lookup;
    try {
      lookup = resolver.resolve(host);
    } catch (RuntimeException e) {
      lookup = Future.failedFuture(e);
    }
    lookup.onComplete(result -> {
      if (result.succeeded() && !result.result().isEmpty()) {
        // sorted, so an unchanged DNS answer in another order changes nothing
        List<SocketAddress> found = result.result().stream()
            .map(InetAddress::getHostAddress)
            .distinct()
            .sorted(Comparator.naturalOrder())
            .map(ip -> SocketAddress.inetSocketAddress(port, ip))
            .toList();
        List<Endpoint> current = servers;
        if (!found.equals(current.stream().map(s -> s.address).toList())) {
          // an address still there keeps its health; a new one starts in the rotation
          servers = found.stream()
              .map(address -> current.stream().filter(s -> s.address.equals(address)).findFirst()
                  .orElseGet(() -> new Endpoint(address)))
              .toList();
          LOG.info("Qdrant host {} resolves to {} address(es)", host, found.size());
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
