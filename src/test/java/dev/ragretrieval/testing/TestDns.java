package dev.ragretrieval.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.dns.AddressResolverOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A DNS server on 127.0.0.1 (UDP, ephemeral port) that answers A queries for the names it is
 * given, with every address at once and a TTL of 0, as a headless Kubernetes Service does; any
 * other name is NXDOMAIN, AAAA queries get no answer. A {@code Vertx} made by {@link #vertxOptions}
 * resolves through it, so a test can point the service at one name with several addresses (and
 * change them, as pods that come back with new IPs) without touching the machine's /etc/hosts.
 * Vert.x's hosts-file options cannot do this: they keep one address per name.
 */
public final class TestDns {

  private static final int TYPE_A = 1;

  private final DatagramSocket socket;
  private final Map<String, List<InetAddress>> names = new ConcurrentHashMap<>();
  private volatile int port;

  private TestDns(Vertx vertx) {
    this.socket = vertx.createDatagramSocket();
  }

  public static Future<TestDns> start(Vertx vertx) {
    TestDns dns = new TestDns(vertx);
    dns.socket.handler(dns::answer);
    return dns.socket.listen(0, "127.0.0.1").map(s -> {
      dns.port = s.localAddress().port();
      return dns;
    });
  }

  /** Options for a Vertx whose resolver asks only this server (the hosts file still gives localhost). */
  public VertxOptions vertxOptions() {
    return new VertxOptions().setAddressResolverOptions(new AddressResolverOptions()
        .addServer("127.0.0.1:" + port)
        .setSearchDomains(List.of())
        .setNdots(1)
        .setCacheMaxTimeToLive(0)
        .setQueryTimeout(1000));
  }

  /** {@code name} resolves to {@code ips} from now on (none = NXDOMAIN). */
  public void set(String name, String... ips) {
    List<InetAddress> addresses = java.util.Arrays.stream(ips).map(TestDns::address).toList();
    names.put(name.toLowerCase(java.util.Locale.ROOT), addresses);
  }

  public Future<Void> stop() {
    return socket.close();
  }

  private void answer(DatagramPacket packet) {
    Buffer query = packet.data();
    if (query.length() < 12) {
      return;
    }
    // the question: labels up to a zero byte, then type and class
    StringBuilder name = new StringBuilder();
    int at = 12;
    while (at < query.length() && query.getUnsignedByte(at) != 0) {
      int length = query.getUnsignedByte(at);
      if (name.length() > 0) {
        name.append('.');
      }
      name.append(query.getString(at + 1, at + 1 + length));
      at += 1 + length;
    }
    int questionEnd = at + 5;
    if (questionEnd > query.length()) {
      return;
    }
    int type = query.getUnsignedShort(at + 1);
    List<InetAddress> found = names.get(name.toString().toLowerCase(java.util.Locale.ROOT));
    List<InetAddress> answers = found == null || type != TYPE_A ? List.of() : found;
    Buffer reply = Buffer.buffer()
        .appendShort(query.getShort(0)) // the query's id
        .appendUnsignedShort(found == null ? 0x8183 : 0x8180) // response, recursion desired + available; NXDOMAIN or NOERROR
        .appendUnsignedShort(1)
        .appendUnsignedShort(answers.size())
        .appendUnsignedShort(0)
        .appendUnsignedShort(0)
        .appendBuffer(query.getBuffer(12, questionEnd));
    for (InetAddress address : answers) {
      reply.appendUnsignedShort(0xC00C) // the name, as a pointer to the question's
          .appendUnsignedShort(TYPE_A)
          .appendUnsignedShort(1) // IN
          .appendUnsignedInt(0) // TTL: never cached, every look-up sees the current answer
          .appendUnsignedShort(4)
          .appendBytes(address.getAddress());
    }
    socket.send(reply, packet.sender().port(), packet.sender().host());
  }

  private static InetAddress address(String ip) {
    try {
      return InetAddress.getByName(ip);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(ip, e);
    }
  }
}
