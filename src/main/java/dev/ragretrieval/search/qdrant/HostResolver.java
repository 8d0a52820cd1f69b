package dev.ragretrieval.search.qdrant;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** Looks up every address of a host name. It may block, so it runs on a worker thread. */
@FunctionalInterface
public interface HostResolver {

  List<InetAddress> resolve(String host) throws UnknownHostException;

  /** The JVM's resolver (which honours the JVM's DNS cache TTL). */
  HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));
}
