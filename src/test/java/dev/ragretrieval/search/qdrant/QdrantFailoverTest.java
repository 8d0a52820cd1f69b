package dev.ragretrieval.search.qdrant;

import static dev.ragretrieval.search.qdrant.QdrantTestSupport.await;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.failure;
import static dev.ragretrieval.search.qdrant.QdrantTestSupport.in;
import static dev.ragretrieval.testing.Await.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.testing.QdrantTestServer;
import dev.ragretrieval.testing.TestDns;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Three in-process Qdrant servers on 127.0.0.1, .2 and .3 behind one name that a test DNS server
 * resolves to all of them (as a headless Service does), reached through Vert.x's own resolver as
 * in production. One attempt per call (max_attempts 1), so what keeps requests answering is the
 * failover, not the retry policy.
 */
@ExtendWith(VertxExtension.class)
class QdrantFailoverTest {

  private static final String NAME = "qdrant-headless.cluster.test";
  private static final String[] IPS = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};

  private TestDns dns;
  private Vertx service;
  private final List<QdrantTestServer> nodes = new ArrayList<>();
  private QdrantVectorStore store;
  private final RagMetrics metrics = RagMetrics.detached();

  @BeforeEach
  void start(Vertx vertx) {
    dns = await(TestDns.start(vertx));
    dns.set(NAME, IPS);
    service = Vertx.vertx(dns.vertxOptions());
    int port = 0;
    for (String ip : IPS) {
      QdrantTestServer node = await(QdrantTestServer.start(vertx, ip, port, null));
      port = node.port();
      node.createCollection("docs", 2);
      node.upsert("docs", "1", new float[] {1, 0}, new JsonObject().put("text", "on " + ip));
      nodes.add(node);
    }
  }

  @AfterEach
  void stop() {
    if (store != null) {
      await(store.close());
    }
    for (QdrantTestServer node : nodes) {
      await(node.stop());
    }
    await(service.close());
    await(dns.stop());
  }

  @Test
  @DisplayName("one node stopped: every search answers, the node leaves the rotation, and rejoins once it answers its probe")
  void nodeDownAndBack() {
    store = store(new AppConfig.Circuit(3, Duration.ofSeconds(10), Duration.ofSeconds(5)), Duration.ofSeconds(10));
    assertThat(await(store.search(search()))).hasSize(1); // first look-up done, all three in turn
    QdrantTestServer second = nodes.get(1);
    await(second.stop());

    for (int i = 0; i < 30; i++) {
      assertThat(await(store.search(search()))).as("search %d", i).hasSize(1);
    }
    // one call at most went to the stopped node (then it was out), none of the 30 failed, the circuit stayed closed
    int queriesWhileDown = nodes.get(0).callCount("Query") + nodes.get(2).callCount("Query");
    assertThat(queriesWhileDown).isGreaterThanOrEqualTo(30);

    await(second.restart());
    eventually(() -> {
      await(store.search(search()));
      return second.callCount("Query") > 0 && second.callCount("Collections/List") > 0;
    });
  }

  @Test
  @DisplayName("UNAVAILABLE from one node is sent to another; the node answered, so it stays in the rotation")
  void unavailableGoesElsewhere() {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10));
    await(store.search(search()));
    QdrantTestServer first = nodes.get(0);
    first.failNext(3, GrpcStatus.UNAVAILABLE, null);

    for (int i = 0; i < 12; i++) {
      assertThat(await(store.search(search()))).hasSize(1);
    }

    // it kept getting calls, and was never probed: a node that answers is not taken out
    assertThat(first.callCount("Query")).isGreaterThan(4);
    assertThat(first.callCount("Collections/List")).isZero();
  }

  @Test
  @DisplayName("the retry on another node stays within the request's deadline")
  void failoverWithinDeadline() {
    // the deadline (300 ms) was spent on the first node before the hedge delay (300 ms): no second node was asked
    assertThat(queriesForTimedOutSearch(AppConfig.Failover.DEFAULT.hedgeAfter())).isEqualTo(1);
  }

  @Test
  @DisplayName("the circuit opens only when the whole cluster fails")
  void circuitOnlyForTheWholeCluster() {
    store = store(new AppConfig.Circuit(3, Duration.ofSeconds(10), Duration.ofSeconds(30)), Duration.ofSeconds(10));
    await(store.search(search()));
    // two of three go down, one after the other: still answering, nothing reaches the circuit
    await(nodes.get(0).stop());
    for (int i = 0; i < 5; i++) {
      assertThat(await(store.search(search()))).hasSize(1);
    }
    await(nodes.get(2).stop());
    for (int i = 0; i < 5; i++) {
      assertThat(await(store.search(search()))).hasSize(1);
    }

    await(nodes.get(1).stop());
    List<ServiceException> errors = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      errors.add(failure(store.search(search())));
    }
    assertThat(errors).allSatisfy(e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_ERROR));
    assertThat(errors.get(4).getMessage()).contains("circuit open");
  }

  @Test
  @DisplayName("the name is resolved again every interval: a pod that comes back with a new address gets calls without any failure first")
  void followsNewAddresses(Vertx vertx) {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofMillis(200));
    await(store.search(search()));
    QdrantTestServer moved = await(QdrantTestServer.start(vertx, "127.0.0.4", nodes.get(0).port(), null));
    nodes.add(moved);
    moved.createCollection("docs", 2);
    moved.upsert("docs", "1", new float[] {1, 0}, new JsonObject().put("text", "on 127.0.0.4"));

    dns.set(NAME, "127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4");

    eventually(() -> {
      await(store.search(search()));
      return moved.callCount("Query") > 0;
    });
  }

  @Test
  @DisplayName("with a node down, collection info (readiness) and writes still succeed")
  void readinessAndWritesWithANodeDown() {
    store = store(AppConfig.Circuit.DEFAULT, Duration.ofSeconds(10));
    await(store.search(search()));
    await(nodes.get(2).stop());

    for (int i = 0; i < 6; i++) {
      assertThat(await(store.collectionInfo("docs", in(Duration.ofSeconds(2)))).vectorSize()).isEqualTo(2);
      await(store.upsert("docs", List.of(new Point(UUID.randomUUID().toString(), new float[] {0, 1},
          new JsonObject().put("text", "new"))), in(Duration.ofSeconds(2))));
    }

    assertThat(nodes.get(0).callCount("Upsert") + nodes.get(1).callCount("Upsert")).isEqualTo(6);
  }

  @Test
  @DisplayName("a node that holds a search: another node answers it after the hedge delay, and calls pass the node over until it answers")
  void slowNodeIsHedgedAndPassedOver() {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), Duration.ofMillis(100));
    await(store.search(search()));
    QdrantTestServer slow = nodes.get(1);
    int slowBefore = slow.callCount("Query");
    slow.delay(Duration.ofMillis(2500)); // as a node just restarted, catching up

    for (int i = 0; i < 12; i++) {
      long sent = System.nanoTime();
      assertThat(await(store.search(search()))).as("search %d", i).hasSize(1);
      // the hedge delay and a fast node's answer, not the slow node's 2.5 s
      assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("search %d", i).isLessThan(Duration.ofMillis(1500));
    }
    // in turn, four of the twelve would have gone to it; after the first, it was passed over
    assertThat(slow.callCount("Query") - slowBefore).isEqualTo(1);

    backInTurn(slow, slowBefore); // it answered the held call
  }

  @Test
  @DisplayName("when every node is slow, at most ten reads in a row are sent twice (the hedge budget)")
  void hedgeBudgetWhenEveryNodeIsSlow() {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), Duration.ofMillis(20));
    await(store.search(search()));
    for (QdrantTestServer node : nodes) {
      node.delay(Duration.ofMillis(100));
    }
    int before = queries();

    for (int i = 0; i < 25; i++) {
      assertThat(await(store.search(search()))).as("search %d", i).hasSize(1);
    }

    // 25 searches, of which the first ten were sent to a second node; none answered within 20 ms
    // to earn more
    eventually(() -> queries() - before == 35);
    assertThat(queries() - before).isEqualTo(35);
    assertThat(hedged()).isEqualTo(10.0);
  }

  @Test
  @DisplayName("with the hedge budget spent, a node that holds a search is still passed over until it answers")
  void slowNodeIsPassedOverWithTheBudgetSpent() throws InterruptedException {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), Duration.ofMillis(20), Duration.ofSeconds(8));
    await(store.search(search()));
    for (QdrantTestServer node : nodes) {
      node.delay(Duration.ofMillis(100));
    }
    // every node slow: ten searches in a row are sent twice and spend the budget
    for (int i = 0; i < 10; i++) {
      await(store.search(search()));
    }
    assertThat(hedged()).isEqualTo(10.0);
    // a search's answer reaches this thread just before its node's hold ends on the event loop: a
    // node still held now would be left out of the turn below (a CI run failed so)
    Thread.sleep(300);

    for (QdrantTestServer node : nodes) {
      node.delay(Duration.ZERO);
    }
    QdrantTestServer slow = nodes.get(1);
    slow.delay(Duration.ofSeconds(4)); // within the searches' 5-s deadline
    int slowBefore = slow.callCount("Query");
    // three searches at once: in turn, one each, so one is held by the slow node
    long sentAtOnce = System.nanoTime();
    List<Future<List<ScoredPoint>>> atOnce = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      atOnce.add(store.search(search()));
    }
    Thread.sleep(1000); // well past the 20 ms hedge delay: the held search has met the empty budget

    for (int i = 0; i < 12; i++) {
      long sent = System.nanoTime();
      assertThat(await(store.search(search()))).as("search %d", i).hasSize(1);
      assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("search %d", i).isLessThan(Duration.ofMillis(1500));
    }
    // passed over, although no second call was sent for the search it holds
    assertThat(slow.callCount("Query") - slowBefore).isEqualTo(1);
    for (var search : atOnce) {
      assertThat(await(search)).hasSize(1);
    }
    // the held search was not sent twice (the budget was spent): it waited for the slow node's answer
    assertThat(Duration.ofNanos(System.nanoTime() - sentAtOnce)).isGreaterThanOrEqualTo(Duration.ofSeconds(4));
  }

  @Test
  @DisplayName("a node that holds a search to its deadline and leaves a probe unanswered too is out of the rotation until a probe answers")
  void stalledNodeLeavesTheRotation() {
    // calls get 600 ms, so the held one ends at its deadline long before the node would answer
    QdrantTestServer stalled = storeWithAStalledNode(Duration.ofMillis(600));
    int before = stalled.callCount("Query");

    long until = System.nanoTime() + Duration.ofSeconds(2).toNanos(); // three of its deadlines and more
    int searches = 0;
    while (System.nanoTime() < until) {
      assertThat(await(store.search(search()))).as("search %d", searches++).hasSize(1);
    }
    // held once; were it back in turn after that call's deadline, it would be asked again (and hedged)
    assertThat(stalled.callCount("Query") - before).as("searches sent to it, of %d", searches).isEqualTo(1);
    assertThat(hedged()).isGreaterThanOrEqualTo(1.0); // the held one (a busy machine may add another)

    backInTurn(stalled, before); // a probe got its answer
  }

  @Test
  @DisplayName("a node that leaves a write unanswered for all of qdrant.timeout_ms, and a probe too, gets no more writes")
  void stalledNodeGetsNoMoreWrites() {
    QdrantTestServer stalled = storeWithAStalledNode(Duration.ofMillis(400));
    List<ErrorCode> failures = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      var write = store.upsert("docs", List.of(new Point(UUID.randomUUID().toString(), new float[] {0, 1},
          new JsonObject().put("text", "write " + i))), in(Duration.ofSeconds(5)));
      try {
        await(write);
      } catch (ServiceException e) {
        failures.add(e.code());
      }
    }
    // in turn, four of the twelve would have gone to it; the first one's timeout took it out
    assertThat(stalled.callCount("Upsert")).isEqualTo(1);
    assertThat(failures).containsExactly(ErrorCode.TIMEOUT); // one attempt a call in this test
  }

  @Test
  @DisplayName("a write that waits inside a node past qdrant.timeout_ms, on a node that answers a probe, leaves the node in the rotation")
  void slowWriteOnALiveNodeKeepsItInTurn() {
    // probes of nodes out of the rotation only every 10 s: one taken out would stay out for this test
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMillis(400),
        Duration.ofSeconds(10));
    await(store.search(search()));
    for (QdrantTestServer node : nodes) {
      node.delay("Upsert", Duration.ofSeconds(2)); // as writes wait on a stopped node's replica
    }
    ServiceException error = failure(store.upsert("docs", List.of(new Point(UUID.randomUUID().toString(),
        new float[] {0, 1}, new JsonObject().put("text", "slow"))), in(Duration.ofSeconds(5))));
    assertThat(error.code()).isEqualTo(ErrorCode.TIMEOUT);
    assertThat(store.addresses()).doesNotContainValue(false); // probed, not taken out
    int before = queries();

    // the probe of the node that held the write answered: every node still gets searches in turn
    eventually(() -> {
      await(store.search(search()));
      return nodes.stream().allMatch(node -> node.callCount("Query") > 0) && queries() - before >= 6;
    });
    assertThat(store.addresses()).doesNotContainValue(false);
  }

  @Test
  @DisplayName("a hedged read that no node answers in time fails once, as TIMEOUT, after both calls")
  void hedgedReadTimesOut() {
    assertThat(queriesForTimedOutSearch(Duration.ofMillis(50))).isEqualTo(2);
  }

  /**
   * With every node answering in 600 ms, a search with a 300 ms deadline: it fails as TIMEOUT; how
   * many Query calls it made.
   */
  private int queriesForTimedOutSearch(Duration hedgeAfter) {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), hedgeAfter);
    await(store.search(search()));
    for (QdrantTestServer node : nodes) {
      node.delay(Duration.ofMillis(600));
    }
    int before = queries();

    ServiceException error = failure(store.search(new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(),
        Deadline.in(Duration.ofMillis(300)))));

    assertThat(error.code()).isEqualTo(ErrorCode.TIMEOUT);
    // a node counts a call when it arrives: by the deadline, every call sent has arrived
    return queries() - before;
  }

  @Test
  @DisplayName("with hedging off, or for a write, a slow node's call is waited for and sent once")
  void writesAndHedgingOffAreSentOnce() {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), Duration.ZERO);
    await(store.search(search()));
    for (QdrantTestServer node : nodes) {
      node.delay(Duration.ofMillis(300));
    }
    int before = queries();
    long sent = System.nanoTime();
    assertThat(await(store.search(search()))).hasSize(1);
    assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(queries()).isEqualTo(before + 1);
    await(store.close());

    // hedging on: still one Upsert, to whichever node's turn it was
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), Duration.ofMillis(20));
    await(store.upsert("docs", List.of(new Point(UUID.randomUUID().toString(), new float[] {0, 1},
        new JsonObject().put("text", "new"))), in(Duration.ofSeconds(2))));
    assertThat(nodes.stream().mapToInt(node -> node.callCount("Upsert")).sum()).isEqualTo(1);
  }

  /**
   * A store whose calls get {@code timeout}, after one search answered, with its second node then
   * holding every call for 5 s, its probes too.
   */
  private QdrantTestServer storeWithAStalledNode(Duration timeout) {
    store = store(AppConfig.Circuit.DISABLED, Duration.ofSeconds(10), Duration.ofMillis(100), timeout);
    await(store.search(search()));
    QdrantTestServer stalled = nodes.get(1);
    stalled.delay(Duration.ofSeconds(5));
    return stalled;
  }

  private QdrantVectorStore store(AppConfig.Circuit circuit, Duration resolveEvery) {
    return store(circuit, resolveEvery, AppConfig.Failover.DEFAULT.hedgeAfter());
  }

  private QdrantVectorStore store(AppConfig.Circuit circuit, Duration resolveEvery, Duration hedgeAfter) {
    return store(circuit, resolveEvery, hedgeAfter, Duration.ofSeconds(3));
  }

  private QdrantVectorStore store(AppConfig.Circuit circuit, Duration resolveEvery, Duration hedgeAfter,
      Duration timeout) {
    return store(circuit, resolveEvery, hedgeAfter, timeout, Duration.ofMillis(100));
  }

  private QdrantVectorStore store(AppConfig.Circuit circuit, Duration resolveEvery, Duration hedgeAfter,
      Duration timeout, Duration probeEvery) {
    AppConfig.Qdrant config = new AppConfig.Qdrant(Optional.of(NAME), nodes.get(0).port(), Optional.empty(), false,
        Optional.empty(), "docs", Set.of(), timeout, 1, circuit, AppConfig.Layout.QDRANT_DEFAULT,
        Optional.empty(), Optional.empty(), new AppConfig.Failover(resolveEvery, probeEvery, hedgeAfter));
    return new QdrantVectorStore(service, config, metrics);
  }

  /** Once {@code node} answers at once again, searches reach it again: more than the one it held since {@code before}. */
  private void backInTurn(QdrantTestServer node, int before) {
    node.delay(Duration.ZERO);
    eventually(() -> {
      await(store.search(search()));
      return node.callCount("Query") - before > 1;
    });
  }

  private double hedged() {
    return metrics.registry().get("rag_upstream_hedged_total").tag("upstream", "qdrant").counter().count();
  }

  private int queries() {
    return nodes.stream().mapToInt(node -> node.callCount("Query")).sum();
  }

  private static SearchRequest search() {
    return new SearchRequest("docs", new float[] {1, 0}, 1, 0f, Map.of(), in(Duration.ofSeconds(5)));
  }
}
