package dev.ragretrieval.testing;

import io.qdrant.client.grpc.JsonWithInt.ListValue;
import io.qdrant.client.grpc.JsonWithInt.NullValue;
import io.qdrant.client.grpc.JsonWithInt.Struct;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.VxCollectionsGrpcService;
import io.qdrant.client.grpc.VxPointsGrpcService;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import io.vertx.grpc.server.StatusException;
import java.net.BindException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A real gRPC server speaking Qdrant's Points and Collections protocol (the method descriptors
 * and messages generated from Qdrant's own .proto files), over an in-memory store with exact
 * brute-force cosine search. Tests and benchmarks point a {@code QdrantVectorStore} at it.
 *
 * <h2>What it implements</h2>
 * Collections: Get, List, Create (one dense Cosine vector, unnamed or named, plus sparse vectors
 * with or without the IDF modifier; metadata kept and returned; shards, replicas, write
 * consistency, on-disk payload and scalar quantization are kept and reported back by Get, not
 * acted on), Delete, CollectionExists. Points:
 * Query (nearest dense, sparse or {@code Document} vector; prefetch, nested, with fusion RRF (k 2,
 * as Qdrant's {@code Fusion.RRF}) or {@code Rrf {k, weights}} with Qdrant's weighted formula, equal
 * fused scores in random order as Qdrant's unstable sort leaves them, or a nearest rescoring over
 * the prefetched points; limit, offset, score_threshold, filter, with_payload
 * enable/include/exclude, with_vectors, using), QueryBatch, Search (as the nearest Query it
 * amounts to; LangChain4j's store calls it), Upsert (dense or legacy data vectors; sparse vectors
 * as indices/values or as a {@code Document} with model {@code qdrant/bm25} and its BM25 options,
 * inferred as Qdrant does: {@link QdrantTestBm25}),
 * Delete (ids or filter), SetPayload (filter), Count, CreateFieldIndex, Facet, Scroll (filter, offset, limit, with_payload,
 * with_vectors; id order and next_page_offset as Qdrant). Filters: must / must_not / should /
 * min_should, nested filters, HasId, is_empty, is_null, keyword / integer / boolean matches,
 * keywords / integers (any of), except matches and numeric ranges. Every other RPC answers
 * UNIMPLEMENTED.
 *
 * <h2>Qdrant's answers</h2>
 * NOT_FOUND "Not found: Collection `x` doesn't exist!" for a missing collection; INVALID_ARGUMENT
 * "Wrong input: Vector dimension error: expected dim: N, got M" for a wrong vector size;
 * INVALID_ARGUMENT "Wrong input: Not existing vector name error: x" for a vector name the
 * collection lacks (in a query's {@code using} or an upserted point);
 * INVALID_ARGUMENT "Validation error in body: [shard_number: value 0 invalid, must be 1 or larger]"
 * (and the same for replication_factor, write_consistency_factor, a scalar quantile outside 0.5..1,
 * a search's oversampling below 1); UNAUTHENTICATED when the server was started with a required api key and a call carries none or
 * another one (metadata {@code api-key}); ALREADY_EXISTS when creating an existing collection.
 * Query without with_payload returns no payload, as Qdrant does; limit defaults to 10.
 *
 * <h2>Test controls</h2>
 * {@link #failNext} makes the next calls fail with a status (and optional {@code retry-after}
 * trailer); {@link #resetNext} resets their streams mid-call; {@link #delay} answers slowly; {@link #callCount} and {@link #lastApiKey} tell what
 * arrived; {@link #stop} really closes the port (clients then see UNAVAILABLE / a refused
 * connection) and {@link #restart} listens again on the same port with the same data.
 * {@link #startTls} serves the same over TLS with a self-signed certificate for {@code localhost}.
 *
 * <pre>{@code
 * QdrantTestServer qdrant = QdrantTestServer.start(vertx).toCompletionStage().toCompletableFuture().get();
 * qdrant.createCollection("docs", 4);
 * qdrant.upsert("docs", UUID.randomUUID().toString(), new float[] {1, 0, 0, 0}, new JsonObject().put("text", "hi"));
 * // QDRANT_HOST=127.0.0.1, QDRANT_GRPC_PORT=qdrant.port()
 * qdrant.stop();
 * }</pre>
 */
public final class QdrantTestServer {

  /** status null: the call's stream is reset (RST_STREAM), as Qdrant does to calls in flight when it stops gracefully. */
  private record Failure(GrpcStatus status, String retryAfterSeconds) {}

  /** restart() keeps trying to listen on its port for up to 100 x 20 ms. */
  private static final int REBIND_TRIES = 100;
  private static final long REBIND_WAIT_MS = 20;

  private final Vertx vertx;
  private final String host;
  private final String requiredApiKey;
  /** null = plaintext h2c; else the server's key and certificate, held in memory. */
  private final PemKeyCertOptions tls;
  private final String certificatePem;
  private final QdrantTestStore store = new QdrantTestStore();
  private final GrpcServer grpc;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final Deque<Failure> failures = new ArrayDeque<>();
  /** Edits of the next answers (editNextAnswer), guarded by {@code failures} too. */
  private final Deque<java.util.function.UnaryOperator<com.google.protobuf.Message>> edits = new ArrayDeque<>();
  private volatile Duration delay = Duration.ZERO;
  private final Map<String, Duration> methodDelays = new ConcurrentHashMap<>();
  private volatile String lastApiKey;
  private volatile long lastClientWindow = -1;
  private volatile HttpServer http;
  /** Listeners on further addresses ({@link #alsoListen}). */
  private final List<HttpServer> alsoOn = new CopyOnWriteArrayList<>();
  private volatile int port;

  private QdrantTestServer(Vertx vertx, String host, String requiredApiKey) {
    this(vertx, host, requiredApiKey, null, null);
  }

  private QdrantTestServer(Vertx vertx, String host, String requiredApiKey, PemKeyCertOptions tls,
      String certificatePem) {
    this.vertx = vertx;
    this.host = host;
    this.requiredApiKey = requiredApiKey;
    this.tls = tls;
    this.certificatePem = certificatePem;
    this.grpc = GrpcServer.server(vertx, new GrpcServerOptions().setMaxMessageSize(64L * 1024 * 1024));
    bindCollections();
    bindPoints();
  }

  /** Listens on 127.0.0.1, on an ephemeral port, with no api key required. */
  public static Future<QdrantTestServer> start(Vertx vertx) {
    return start(vertx, 0, null);
  }

  /** {@code port} 0 = ephemeral; {@code requiredApiKey} null = no key required. */
  public static Future<QdrantTestServer> start(Vertx vertx, int port, String requiredApiKey) {
    return start(vertx, "127.0.0.1", port, requiredApiKey);
  }

  /**
   * Listens on a given loopback address, e.g. two servers on 127.0.0.1 and 127.0.0.2 with the
   * same port stand for two pods behind one headless Service name.
   */
  public static Future<QdrantTestServer> start(Vertx vertx, String host, int port, String requiredApiKey) {
    QdrantTestServer server = new QdrantTestServer(vertx, host, requiredApiKey);
    return server.listen(port).map(server);
  }

  /**
   * Listens on 127.0.0.1 (ephemeral port) with TLS and HTTP/2 over ALPN, as a self-hosted Qdrant
   * behind a private CA does, with a {@link TestCertificate} for {@code localhost}: clients connect
   * to host {@code localhost} and trust {@link #certificatePem()}.
   */
  public static Future<QdrantTestServer> startTls(Vertx vertx, String requiredApiKey) {
    return TestCertificate.localhost(vertx)
        .map(cert -> new QdrantTestServer(vertx, "127.0.0.1", requiredApiKey, cert.keyCertOptions(), cert.certificatePem()))
        .compose(server -> server.listen(0).map(server));
  }

  /** The TLS server's certificate in PEM (it is its own CA); null for a plaintext server. */
  public String certificatePem() {
    return certificatePem;
  }

  public int port() {
    return port;
  }

  public String host() {
    return host;
  }

  /** A collection with one unnamed dense Cosine vector. */
  public void createCollection(String name, int dimension) {
    store.createCollection(name, dimension, "");
  }

  /** A collection whose single dense Cosine vector is named (as some ingestion tools create them). */
  public void createCollection(String name, int dimension, String vectorName) {
    store.createCollection(name, dimension, vectorName);
  }

  /**
   * A collection as this service's ingest creates one for hybrid search: the unnamed dense vector
   * and the sparse vector {@code sparseName} with the IDF modifier.
   */
  public void createHybridCollection(String name, int dimension, String sparseName) {
    store.createCollection(name, dimension, "");
    store.addSparseVector(name, sparseName, io.qdrant.client.grpc.Collections.Modifier.Idf);
  }

  /** The collection's sparse vectors as created: name -> modifier. */
  public Map<String, io.qdrant.client.grpc.Collections.Modifier> sparseVectorConfig(String collection) {
    return store.sparseConfig(collection);
  }

  /** false: stop keeping the Queries received (a long bench run would run out of memory). */
  public void recordQueries(boolean record) {
    store.recordQueries(record);
  }

  /**
   * The bench's speed: unfiltered dense queries over the whole {@code collection} are answered
   * from each vector's ranking of every point, computed once ({@code vectors} now, in parallel;
   * any other vector on first use) instead of a brute-force pass per call. Same scores, same order;
   * a write forgets them. Queries with a filter, prefetch or sparse vector are computed as before.
   */
  public void rememberRankings(String collection, List<float[]> vectors) {
    store.rememberRankings(collection, vectors);
  }

  /** Every Query received (each query of a QueryBatch too), oldest first: what a client really sent. */
  public List<io.qdrant.client.grpc.Points.QueryPoints> queries() {
    return store.queries();
  }

  /** The sparse vectors stored for a point (name -> term id -> weight), or null. */
  public Map<String, Map<Integer, Float>> sparseVectors(String collection, String id) {
    return store.sparseVectors(collection, id);
  }

  /**
   * The CreateCollection a collection was made with (its shards, replicas, write consistency,
   * on-disk payload, quantization); the default instance for one made directly by a test. Get
   * reports these back as Qdrant does.
   */
  public io.qdrant.client.grpc.Collections.CreateCollection layout(String collection) {
    return store.layout(collection);
  }

  /** The write ordering of every Upsert, Delete and CreateFieldIndex received, oldest first (Weak when none was sent). */
  public List<io.qdrant.client.grpc.Points.WriteOrderingType> orderings() {
    return store.orderings();
  }

  public boolean collectionExists(String name) {
    return store.exists(name);
  }

  /** Stores a point directly; {@code id} is a UUID or an unsigned number as text. */
  public void upsert(String collection, String id, float[] vector, JsonObject payload) {
    Map<String, Value> fields = new LinkedHashMap<>();
    if (payload != null) {
      payload.forEach(e -> fields.put(e.getKey(), value(e.getValue())));
    }
    store.put(collection, QdrantTestStore.parseId(id), vector, fields);
  }

  /**
   * Stores a point with the sparse vector {@code sparseName} inferred from {@code bm25Text} as
   * Qdrant's {@code qdrant/bm25} model would (the collection must have that sparse vector).
   */
  public void upsert(String collection, String id, float[] vector, JsonObject payload, String sparseName, String bm25Text) {
    Map<String, Value> fields = new LinkedHashMap<>();
    if (payload != null) {
      payload.forEach(e -> fields.put(e.getKey(), value(e.getValue())));
    }
    store.put(collection, QdrantTestStore.parseId(id), vector, fields, Map.of(sparseName, QdrantTestBm25.document(bm25Text)));
  }

  /** Points in the collection; 0 when it does not exist. */
  public long count(String collection) {
    return store.count(collection);
  }

  /** The ids stored in the collection (UUIDs in canonical lower case), in insertion order. */
  public Set<String> ids(String collection) {
    return store.ids(collection);
  }

  /** The stored payload of one point as Qdrant holds it, or null. */
  public Map<String, Value> payload(String collection, String id) {
    return store.payload(collection, id);
  }

  /** Payload indexes created with CreateFieldIndex: field name -> type. */
  public Map<String, FieldType> payloadIndexes(String collection) {
    return store.indexes(collection);
  }

  /** The next {@code times} calls (any RPC) fail with {@code status}; retry-after is sent as a trailer when not null. */
  public void failNext(int times, GrpcStatus status, String retryAfterSeconds) {
    synchronized (failures) {
      for (int i = 0; i < times; i++) {
        failures.add(new Failure(status, retryAfterSeconds));
      }
    }
  }

  /**
   * The next {@code times} calls (any RPC) have their stream reset mid-call instead of an answer,
   * as a Qdrant stopping gracefully does to the calls it still holds; the client sees CANCELLED.
   */
  public void resetNext(int times) {
    synchronized (failures) {
      for (int i = 0; i < times; i++) {
        failures.add(new Failure(null, null));
      }
    }
  }

  /**
   * The next answer (any RPC) goes through {@code edit} before it is sent, as from a replica whose
   * data differs from the one that answered before.
   */
  public void editNextAnswer(java.util.function.UnaryOperator<com.google.protobuf.Message> edit) {
    synchronized (failures) {
      edits.add(edit);
    }
  }

  /** Every call waits this long before it is answered ({@code Duration.ZERO} = at once). */
  public void delay(Duration perCall) {
    this.delay = perCall;
  }

  /**
   * Calls of one method ("Upsert", ...) wait this long instead of {@link #delay}: a write that a
   * real node holds while it waits on another node's replica, while the node answers other calls.
   */
  public void delay(String method, Duration perCall) {
    methodDelays.put(method, perCall);
  }

  /**
   * Calls received, by method name ("Query", "QueryBatch", "Upsert", ...) summed over both
   * services, or by service and method ("Collections/Get", "Points/Get").
   */
  public int callCount(String rpcName) {
    if (rpcName.contains("/")) {
      AtomicInteger n = calls.get(rpcName);
      return n == null ? 0 : n.get();
    }
    return calls.entrySet().stream()
        .filter(e -> e.getKey().endsWith("/" + rpcName))
        .mapToInt(e -> e.getValue().get())
        .sum();
  }

  /** The api-key metadata of the last call, or null when it carried none. */
  public String lastApiKey() {
    return lastApiKey;
  }

  /**
   * The HTTP/2 flow-control window the client of the last call offered for each of its calls
   * (its SETTINGS_INITIAL_WINDOW_SIZE): how much of an answer may be sent before it acknowledges.
   */
  public long lastClientWindow() {
    return lastClientWindow;
  }

  /** Closes the port and every open connection. */
  public Future<Void> stop() {
    HttpServer current = http;
    http = null;
    List<HttpServer> others = List.copyOf(alsoOn);
    alsoOn.clear();
    List<Future<Void>> closed = new ArrayList<>();
    if (current != null) {
      closed.add(current.close());
    }
    others.forEach(other -> closed.add(other.close()));
    return Future.all(closed).mapEmpty();
  }

  /**
   * Serves the same collections on {@code otherHost} too, on the same port: one store behind
   * several addresses, as the bench's stand-in for a cluster whose nodes all answer every
   * collection. Plaintext only; {@link #stop} closes these listeners as well.
   */
  public Future<Void> alsoListen(String otherHost) {
    return vertx.createHttpServer(new HttpServerOptions().setHost(otherHost).setPort(port))
        .requestHandler(grpc).listen()
        .onSuccess(alsoOn::add)
        .mapEmpty();
  }

  /** Listens again on the same port, with the same data. */
  public Future<Void> restart() {
    return stop().compose(v -> relisten(REBIND_TRIES)).mapEmpty();
  }

  /**
   * stop() completes once this side has closed its connections, but each closed socket holds the
   * port (FIN_WAIT) until the client has closed its end too; until then Linux refuses to listen
   * on the port again. That takes milliseconds, so the bind is tried again for a while.
   */
  private Future<HttpServer> relisten(int triesLeft) {
    return listen(port).recover(failure -> {
      if (!(failure instanceof BindException) || triesLeft <= 1) {
        return Future.failedFuture(failure);
      }
      Promise<HttpServer> again = Promise.promise();
      vertx.setTimer(REBIND_WAIT_MS, id -> relisten(triesLeft - 1).onComplete(again));
      return again.future();
    });
  }

  private Future<HttpServer> listen(int wanted) {
    HttpServerOptions options = new HttpServerOptions().setHost(host).setPort(wanted);
    if (tls != null) {
      options.setSsl(true).setUseAlpn(true).setKeyCertOptions(tls);
    }
    HttpServer server = vertx.createHttpServer(options);
    return server.requestHandler(grpc).listen().onSuccess(s -> {
      http = s;
      port = s.actualPort();
    });
  }

  private void bindCollections() {
    bind("Collections", VxCollectionsGrpcService.Get, store::get);
    bind("Collections", VxCollectionsGrpcService.List, store::list);
    bind("Collections", VxCollectionsGrpcService.Create, store::create);
    bind("Collections", VxCollectionsGrpcService.Delete, store::delete);
    bind("Collections", VxCollectionsGrpcService.CollectionExists, store::collectionExists);
  }

  private void bindPoints() {
    bind("Points", VxPointsGrpcService.Query, store::query);
    bind("Points", VxPointsGrpcService.QueryBatch, store::queryBatch);
    bind("Points", VxPointsGrpcService.Search, store::searchPoints);
    bind("Points", VxPointsGrpcService.Upsert, store::upsert);
    bind("Points", VxPointsGrpcService.Delete, store::deletePoints);
    bind("Points", VxPointsGrpcService.Count, store::countPoints);
    bind("Points", VxPointsGrpcService.CreateFieldIndex, store::createFieldIndex);
    bind("Points", VxPointsGrpcService.Facet, store::facet);
    bind("Points", VxPointsGrpcService.Scroll, store::scroll);
    bind("Points", VxPointsGrpcService.SetPayload, store::setPayload);
  }

  /** Every bound RPC goes through the same gate: count, api key, injected failure, delay, then the store. */
  private <Req, Resp> void bind(String service, ServiceMethod<Req, Resp> method, Function<Req, Resp> impl) {
    String name = service + "/" + method.methodName();
    grpc.callHandler(method, request -> {
      calls.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
      String key = request.headers().get("api-key");
      lastApiKey = key;
      lastClientWindow = request.connection().remoteSettings().getInitialWindowSize();
      request.handler(message -> answer(request, key, () -> impl.apply(message)));
    });
  }

  private <Req, Resp> void answer(GrpcServerRequest<Req, Resp> request, String key, Supplier<Resp> work) {
    GrpcServerResponse<Req, Resp> response = request.response();
    response.exceptionHandler(ignored -> { }); // the client may have given up (deadline): nothing to do
    Runnable reply = () -> {
      if (requiredApiKey != null && !requiredApiKey.equals(key)) {
        fail(response, GrpcStatus.UNAUTHENTICATED, "Must provide an API key or an Authorization bearer token", null);
        return;
      }
      Failure injected;
      synchronized (failures) {
        injected = failures.poll();
      }
      if (injected != null && injected.status() == null) {
        response.cancel();
        return;
      }
      if (injected != null) {
        fail(response, injected.status(), "injected failure", injected.retryAfterSeconds());
        return;
      }
      java.util.function.UnaryOperator<com.google.protobuf.Message> edit;
      synchronized (failures) {
        edit = edits.poll();
      }
      try {
        Resp answer = work.get();
        @SuppressWarnings("unchecked")
        Resp edited = edit == null ? answer : (Resp) edit.apply((com.google.protobuf.Message) answer);
        response.end(edited);
      } catch (StatusException e) {
        fail(response, e.status(), e.message(), null);
      } catch (RuntimeException e) {
        fail(response, GrpcStatus.INTERNAL, "Service internal error: " + e.getMessage(), null);
      }
    };
    long wait = methodDelays.getOrDefault(request.methodName(), delay).toMillis();
    if (wait > 0) {
      vertx.setTimer(wait, id -> reply.run());
    } else {
      reply.run();
    }
  }

  private static void fail(GrpcServerResponse<?, ?> response, GrpcStatus status, String message, String retryAfter) {
    if (retryAfter != null) {
      response.trailers().set("retry-after", retryAfter);
    }
    response.status(status).statusMessage(message).end();
  }

  /** JSON to Qdrant values, written here rather than borrowed so tests check the client's own conversion. */
  private static Value value(Object v) {
    Value.Builder out = Value.newBuilder();
    if (v == null) {
      return out.setNullValue(NullValue.NULL_VALUE).build();
    } else if (v instanceof String s) {
      return out.setStringValue(s).build();
    } else if (v instanceof Boolean b) {
      return out.setBoolValue(b).build();
    } else if (v instanceof Integer || v instanceof Long) {
      return out.setIntegerValue(((Number) v).longValue()).build();
    } else if (v instanceof Number n) {
      return out.setDoubleValue(n.doubleValue()).build();
    } else if (v instanceof JsonObject o) {
      Struct.Builder struct = Struct.newBuilder();
      o.forEach(e -> struct.putFields(e.getKey(), value(e.getValue())));
      return out.setStructValue(struct).build();
    } else if (v instanceof JsonArray a) {
      ListValue.Builder list = ListValue.newBuilder();
      a.forEach(item -> list.addValues(value(item)));
      return out.setListValue(list).build();
    } else if (v instanceof List<?> l) {
      return value(new JsonArray(l));
    } else if (v instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) m;
      return value(new JsonObject(map));
    }
    return out.setStringValue(String.valueOf(v)).build();
  }
}
