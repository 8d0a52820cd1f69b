package dev.ragretrieval.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Real Qdrant 1.18.1 servers for tests: one node, or a cluster of nodes on 127.0.0.1, 127.0.0.2,
 * ... (all loopback on Linux) sharing the same ports, as pods of a StatefulSet do. Each node gets
 * its own temporary storage, runs as a child process, and can be killed ({@code SIGKILL}) and
 * started again on the same storage.
 *
 * <p>The binary is {@code RAG_QDRANT_BINARY}, else what {@code shared/qdrant/qdrant-path} prints
 * in the nearest ancestor directory that has it (the project's sibling {@code ../shared} in a
 * workspace). Where there is none, {@link #binary()} skips the calling test with a message, or
 * fails it when {@code RAG_QDRANT_TESTS=required} (as {@code .ci/run} sets) so CI never passes
 * by skipping.
 */
public final class RealQdrant implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(2)).build();

  private final List<Node> nodes;
  private final Path root;

  private RealQdrant(List<Node> nodes, Path root) {
    this.nodes = List.copyOf(nodes);
    this.root = root;
  }

  /** One node on 127.0.0.1 with free ports, ready to answer. */
  public static RealQdrant single() {
    return single(Map.of());
  }

  /** One node with extra {@code QDRANT__...} environment (an API key, say). */
  public static RealQdrant single(Map<String, String> env) {
    Path bin = binary();
    int[] ports = freePorts(1, 3);
    Path root = tempRoot();
    Node node = new Node(bin, root.resolve("node1"), "127.0.0.1", ports, env, List.of());
    RealQdrant qdrant = new RealQdrant(List.of(node), root);
    try {
      node.start();
      node.awaitReady(START_TIMEOUT);
      return qdrant;
    } catch (RuntimeException | Error e) {
      qdrant.close();
      throw e;
    }
  }

  /**
   * {@code size} nodes forming one cluster: the first on 127.0.0.1 starts the Raft group, the
   * others bootstrap from it. Returns once every node is ready and sees all peers.
   */
  public static RealQdrant cluster(int size) {
    if (size < 2 || size > 9) {
      throw new IllegalArgumentException("a cluster of 2 to 9 nodes, not " + size);
    }
    Path bin = binary();
    int[] ports = freePorts(size, 3);
    Path root = tempRoot();
    Map<String, String> env = Map.of("QDRANT__CLUSTER__ENABLED", "true",
        "QDRANT__CLUSTER__P2P__PORT", Integer.toString(ports[2]));
    List<Node> nodes = new ArrayList<>();
    String first = "http://127.0.0.1:" + ports[2];
    for (int i = 1; i <= size; i++) {
      String host = "127.0.0." + i;
      List<String> args = i == 1
          ? List.of("--uri", first)
          : List.of("--bootstrap", first, "--uri", "http://" + host + ":" + ports[2]);
      nodes.add(new Node(bin, root.resolve("node" + i), host, ports, env, args));
    }
    RealQdrant qdrant = new RealQdrant(nodes, root);
    try {
      // The first node must lead before the others ask to join.
      nodes.get(0).start();
      nodes.get(0).awaitReady(START_TIMEOUT);
      for (Node node : nodes.subList(1, size)) {
        node.start();
      }
      for (Node node : nodes) {
        node.awaitReady(START_TIMEOUT);
        node.awaitPeers(size, START_TIMEOUT);
      }
      return qdrant;
    } catch (RuntimeException | Error e) {
      qdrant.close();
      throw e;
    }
  }

  /**
   * The server binary, or the calling test is skipped (failed, with {@code RAG_QDRANT_TESTS=required})
   * with a message saying how to get one.
   */
  public static Path binary() {
    Optional<Path> found = locate();
    if (found.isPresent()) {
      return found.get();
    }
    String why = "no real Qdrant server: set RAG_QDRANT_BINARY to a Qdrant 1.18 binary, or put the"
        + " workspace's shared/qdrant/qdrant-path beside this project (RAG_QDRANT_TESTS=required"
        + " turns this skip into a failure)";
    if ("required".equalsIgnoreCase(System.getenv("RAG_QDRANT_TESTS"))) {
      fail("RAG_QDRANT_TESTS=required but " + why);
    }
    Assumptions.abort(why);
    throw new AssertionError("unreachable");
  }

  private static Optional<Path> locate() {
    String explicit = System.getenv("RAG_QDRANT_BINARY");
    if (explicit != null && !explicit.isBlank()) {
      Path path = Path.of(explicit);
      return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
    }
    for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null;
        dir = dir.getParent()) {
      Path script = dir.resolve("shared/qdrant/qdrant-path");
      if (Files.isExecutable(script)) {
        return unpack(script);
      }
    }
    return Optional.empty();
  }

  // qdrant-path unpacks the binary once (safe from several processes) and prints its path; it
  // exits 2 where no binary is provided (another OS), which skips like an absent script.
  private static synchronized Optional<Path> unpack(Path script) {
    try {
      Process process = new ProcessBuilder("bash", script.toString())
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0 || out.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(Path.of(out));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  public List<Node> nodes() {
    return nodes;
  }

  /** The node numbered from 1, as its address 127.0.0.N is. */
  public Node node(int number) {
    return nodes.get(number - 1);
  }

  /** The first node's address: a single node's only one. */
  public String host() {
    return nodes.get(0).host();
  }

  public int grpcPort() {
    return nodes.get(0).grpcPort();
  }

  public int httpPort() {
    return nodes.get(0).httpPort();
  }

  /**
   * A hosts-file text mapping {@code name} to every node's address, as a headless Service's DNS
   * name does; for Vert.x's {@code AddressResolverOptions.setHostsValue}.
   */
  public String hostsValue(String name) {
    return nodes.stream().map(n -> n.host() + " " + name + "\n").collect(Collectors.joining());
  }

  /** A REST call to the first live node: for assertions (collection info, cluster state). */
  public JsonObject rest(String method, String path, JsonObject body) {
    Node node = nodes.stream().filter(Node::isAlive).findFirst()
        .orElseThrow(() -> new IllegalStateException("no Qdrant node is running"));
    return node.rest(method, path, body);
  }

  @Override
  public void close() {
    for (Node node : nodes) {
      node.kill();
    }
    deleteTree(root);
  }

  /** One Qdrant process with its own storage, which survives {@link #kill()} and {@link #start()}. */
  public static final class Node {
    private final Path bin;
    private final Path dir;
    private final String host;
    private final int httpPort;
    private final int grpcPort;
    private final Map<String, String> env;
    private final List<String> args;
    private Process process;

    private Node(Path bin, Path dir, String host, int[] ports, Map<String, String> extraEnv,
        List<String> args) {
      this.bin = bin;
      this.dir = dir;
      this.host = host;
      this.httpPort = ports[0];
      this.grpcPort = ports[1];
      Map<String, String> env = new HashMap<>(extraEnv);
      env.put("QDRANT__SERVICE__HOST", host);
      env.put("QDRANT__SERVICE__HTTP_PORT", Integer.toString(httpPort));
      env.put("QDRANT__SERVICE__GRPC_PORT", Integer.toString(grpcPort));
      env.put("QDRANT__STORAGE__STORAGE_PATH", dir.resolve("storage").toString());
      env.put("QDRANT__STORAGE__SNAPSHOTS_PATH", dir.resolve("snapshots").toString());
      env.put("QDRANT__TELEMETRY_DISABLED", "true");
      this.env = Map.copyOf(env);
      this.args = List.copyOf(args);
    }

    public String host() {
      return host;
    }

    public int httpPort() {
      return httpPort;
    }

    public int grpcPort() {
      return grpcPort;
    }

    public synchronized boolean isAlive() {
      return process != null && process.isAlive();
    }

    /** Starts the process (again, on the same storage, after a kill); returns without waiting. */
    public synchronized void start() {
      if (isAlive()) {
        throw new IllegalStateException("node " + host + " is already running");
      }
      try {
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>();
        command.add(bin.toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("qdrant.log").toFile()));
        builder.environment().putAll(env);
        process = builder.start();
        Process started = process;
        // A test JVM that dies must not leave servers behind.
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start Qdrant " + bin, e);
      }
    }

    /** SIGKILL, as a node lost to the OOM killer or a failed machine; waits until it is gone. */
    public synchronized void kill() {
      if (process == null) {
        return;
      }
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /**
     * SIGSTOP: the process stays, its connections stay open, and nothing it holds is answered, as a
     * node whose machine froze, or one cut off without a reset. {@link #resume} lets it go on.
     */
    public synchronized void suspend() {
      signal("-STOP");
    }

    /** SIGCONT after {@link #suspend}. */
    public synchronized void resume() {
      signal("-CONT");
    }

    private void signal(String signal) {
      if (process == null || !process.isAlive()) {
        throw new IllegalStateException("node " + host + " is not running");
      }
      try {
        int exit = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start().waitFor();
        if (exit != 0) {
          throw new IllegalStateException("kill " + signal + " " + process.pid() + " exited " + exit);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    /** Waits until {@code /readyz} answers 200 ("all shards are ready"). */
    public void awaitReady(Duration timeout) {
      await(timeout, "ready", () -> status("/readyz") == 200);
    }

    /** Waits until this node's view of the cluster has {@code count} peers. */
    public void awaitPeers(int count, Duration timeout) {
      await(timeout, "a cluster of " + count, () -> {
        JsonObject peers = rest("GET", "/cluster", null).getJsonObject("result", new JsonObject())
            .getJsonObject("peers", new JsonObject());
        return peers.size() == count;
      });
    }

    /** A REST call to this node, for assertions; the parsed JSON answer. */
    public JsonObject rest(String method, String path, JsonObject body) {
      HttpRequest.BodyPublisher publisher = body == null
          ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofString(body.encode());
      HttpRequest request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
          .header("content-type", "application/json").method(method, publisher).build();
      try {
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        return new JsonObject(response.body()).put("http_status", response.statusCode());
      } catch (IOException e) {
        throw new UncheckedIOException(method + " " + uri(path), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    /** The last lines the process wrote, for a failure message. */
    public String logTail() {
      try {
        List<String> lines = Files.readAllLines(dir.resolve("qdrant.log"));
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
      } catch (IOException e) {
        return "(no log: " + e.getMessage() + ")";
      }
    }

    private int status(String path) {
      try {
        HttpRequest request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(2))
            .GET().build();
        return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
      } catch (IOException e) {
        return -1;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return -1;
      }
    }

    private URI uri(String path) {
      return URI.create("http://" + host + ":" + httpPort + path);
    }

    private void await(Duration timeout, String what, java.util.function.BooleanSupplier done) {
      long end = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < end) {
        if (!isAlive()) {
          fail("Qdrant on " + host + " exited before it was " + what + ":\n" + logTail());
        }
        try {
          if (done.getAsBoolean()) {
            return;
          }
        } catch (RuntimeException notYet) {
          // not listening yet
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      fail("Qdrant on " + host + " was not " + what + " within " + timeout + ":\n" + logTail());
    }
  }

  // Ports free on every node's address: the nodes of a cluster share them, each on its own IP.
  private static int[] freePorts(int hosts, int count) {
    int[] ports = new int[count];
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        ports[i] = freeOnAll(hosts, held);
      }
      return ports;
    } finally {
      for (ServerSocket socket : held) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // only held to keep the port from being handed out twice
        }
      }
    }
  }

  private static int freeOnAll(int hosts, List<ServerSocket> held) {
    for (int attempt = 0; attempt < 50; attempt++) {
      List<ServerSocket> sockets = new ArrayList<>();
      try {
        ServerSocket first = new ServerSocket();
        sockets.add(first);
        first.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        int port = first.getLocalPort();
        for (int i = 2; i <= hosts; i++) {
          ServerSocket other = new ServerSocket();
          sockets.add(other);
          other.bind(new InetSocketAddress(InetAddress.getByName("127.0.0." + i), port));
        }
        held.addAll(sockets);
        return port;
      } catch (IOException taken) {
        for (ServerSocket socket : sockets) {
          try {
            socket.close();
          } catch (IOException ignored) {
            // retrying with another port
          }
        }
      }
    }
    throw new IllegalStateException("no port free on 127.0.0.1 to 127.0.0." + hosts);
  }

  private static Path tempRoot() {
    try {
      return Files.createTempDirectory("real-qdrant");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException ignored) {
      // a temporary directory left behind is harmless
    }
  }
}
