package dev.ragretrieval.search.qdrant;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/** Looks up every address of a host name. */
@FunctionalInterface
public interface HostResolver {

  Future<List<InetAddress>> resolve(String host);

  /**
   * Vert.x's own resolver: non-blocking, honours DNS TTLs, and follows the {@code Vertx}'s
   * {@code AddressResolverOptions} (its DNS servers, search domains, hosts file). Vert.x has no
   * public call that returns every address of a name, so this uses its internal name resolver.
   */
  static HostResolver of(Vertx vertx) {
    return host -> {
      Promise<List<InetSocketAddress>> found = Promise.promise();
      ((VertxInternal) vertx).nameResolver().resolveAll(host, found::handle);
      return found.future().map(addresses -> addresses.stream().map(InetSocketAddress::getAddress).toList());
    };
  }

  /** Always the same answer (tests). */
  static HostResolver fixed(List<InetAddress> addresses) {
    return host -> Future.succeededFuture(addresses);
  }
}
