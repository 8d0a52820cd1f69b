package dev.ragretrieval.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of one real server that can hold what the server answers: a node that is up
 * and slow (one just restarted, catching up), made on demand. What the client sends goes through
 * at once; what the server sends back is held for {@link #hold} and then delivered, in order.
 * {@link #requests} counts the client's writes of 100 bytes or more: with gRPC over HTTP/2, a
 * call's headers and message (a search's vector alone is larger), not the few-byte frames of
 * flow control and pings.
 */
public final class HoldingProxy {

  private static final int REQUEST_BYTES = 100;

  private final Vertx vertx;
  private final NetServer server;
  private final NetClient client;
  private final AtomicInteger requests = new AtomicInteger();
  private volatile long holdNanos;

  private HoldingProxy(Vertx vertx, NetServer server, NetClient client) {
    this.vertx = vertx;
    this.server = server;
    this.client = client;
  }

  /** Listens on {@code host:port} and forwards each connection to {@code targetHost:targetPort}. */
  public static Future<HoldingProxy> start(Vertx vertx, String host, int port, String targetHost, int targetPort) {
    NetServer server = vertx.createNetServer(new NetServerOptions().setHost(host).setPort(port));
    HoldingProxy proxy = new HoldingProxy(vertx, server, vertx.createNetClient());
    server.connectHandler(inbound -> proxy.connect(inbound, targetHost, targetPort));
    return server.listen().map(proxy);
  }

  /** From now on, what the server answers reaches the client this much later (zero: at once). */
  public void hold(Duration hold) {
    holdNanos = hold.toNanos();
  }

  public int requests() {
    return requests.get();
  }

  public Future<Void> stop() {
    return server.close().compose(v -> client.close());
  }

  private void connect(NetSocket inbound, String targetHost, int targetPort) {
    inbound.pause();
    client.connect(targetPort, targetHost).onComplete(connected -> {
      if (connected.failed()) {
        inbound.close();
        return;
      }
      NetSocket outbound = connected.result();
      Held held = new Held(inbound);
      inbound.handler(bytes -> {
        if (bytes.length() >= REQUEST_BYTES) {
          requests.incrementAndGet();
        }
        outbound.write(bytes);
      });
      outbound.handler(held::add);
      inbound.closeHandler(v -> outbound.close());
      outbound.closeHandler(v -> inbound.close());
      inbound.resume();
    });
  }

  /** Bytes from the server and when they may go on (System.nanoTime). */
  private record Pending(Buffer bytes, long releaseAt) {}

  /** One connection's answers on their way back: released in order, each at its time. */
  private final class Held {
    private final NetSocket to;
    private final Queue<Pending> pending = new ArrayDeque<>();
    private long lastRelease;
    private boolean timerSet;

    Held(NetSocket to) {
      this.to = to;
    }

    void add(Buffer bytes) {
      // never before what came earlier, even once the hold is shortened
      lastRelease = Math.max(System.nanoTime() + holdNanos, lastRelease);
      pending.add(new Pending(bytes, lastRelease));
      drain();
    }

    private void drain() {
      long now = System.nanoTime();
      while (!pending.isEmpty() && pending.peek().releaseAt() - now <= 0) {
        to.write(pending.poll().bytes());
      }
      if (!pending.isEmpty() && !timerSet) {
        timerSet = true;
        long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(pending.peek().releaseAt() - now));
        vertx.setTimer(waitMillis, id -> {
          timerSet = false;
          drain();
        });
      }
    }
  }
}
