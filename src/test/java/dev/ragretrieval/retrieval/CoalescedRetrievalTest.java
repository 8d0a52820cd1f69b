package dev.ragretrieval.retrieval;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.TestStack;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * New questions that reach an event loop together (the requests read in one pass over its
 * connections) share one Cohere call and one Qdrant QueryBatch, and each gets the answer it would
 * have had alone.
 */
@ExtendWith(VertxExtension.class)
@DisplayName("Questions of one event-loop turn: one embedding call, one search call, each its own answer")
class CoalescedRetrievalTest {

  private static final List<String> QUESTIONS = List.of(
      "how do ROS 2 nodes talk over topics",
      "what does Gazebo simulate for robots",
      "how does SLAM build a map",
      "what do vision language action models map");

  private TestStack stack;
  /** The texts of each embedding request sent over the event bus, in order. */
  private final List<Integer> embedRequests = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** {@code queryCacheSize}: RAG_QUERY_CACHE_SIZE (0: no query-vector cache). */
  private void start(Vertx vertx, String queryCacheSize) {
    start(vertx, Map.of("RAG_QUERY_CACHE_SIZE", queryCacheSize));
  }

  private void start(Vertx vertx, Map<String, String> settings) {
    // the result cache would answer the second asking without any call: this is about the calls
    Map<String, String> all = new java.util.HashMap<>(settings);
    all.put("RAG_RESULT_CACHE_TTL_MS", "0");
    stack = await(TestStack.start(vertx, all));
    vertx.eventBus().addOutboundInterceptor(delivery -> {
      if (delivery.message().body() instanceof dev.ragretrieval.embedding.EmbedRequest sent) {
        embedRequests.add(sent.texts().size());
      }
      delivery.next();
    });
  }

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
  }

  @ParameterizedTest(name = "RAG_QUERY_CACHE_SIZE={0}")
  @ValueSource(strings = {"10000", "0"})
  @DisplayName("four new questions in one turn: one Cohere call of four texts, one QueryBatch of four queries, with or without the query cache")
  void oneTurn(String queryCacheSize, Vertx vertx) {
    start(vertx, queryCacheSize);
    RetrievalService service = stack.app.retrieval();
    // a first question learns the collection's layout (its own calls), so the turn below is the questions alone
    await(service.retrieve(request(service, "warm up"), "q0", deadline()));
    stack.cohere.reset();
    embedRequests.clear();
    int queriesBefore = stack.qdrant.callCount("Query");
    int batchesBefore = stack.qdrant.callCount("QueryBatch");

    Promise<List<Future<RetrievalResult>>> asked = Promise.promise();
    vertx.getOrCreateContext().runOnContext(turn -> {
      List<Future<RetrievalResult>> answers = new ArrayList<>();
      for (int i = 0; i < QUESTIONS.size(); i++) {
        answers.add(service.retrieve(request(service, QUESTIONS.get(i)), "q" + (i + 1), deadline()));
      }
      asked.complete(answers);
    });
    List<Future<RetrievalResult>> answers = await(asked.future());

    for (int i = 0; i < QUESTIONS.size(); i++) {
      RetrievalResult result = await(answers.get(i));
      assertThat(result.queryId()).isEqualTo("q" + (i + 1));
      assertThat(result.query()).isEqualTo(QUESTIONS.get(i));
      assertThat(result.results()).extracting(RetrievedChunk::id)
          .containsExactlyElementsOf(expectedIds(QUESTIONS.get(i)));
    }
    assertThat(stack.cohere.callCount()).isEqualTo(1);
    assertThat(stack.cohere.inputCount()).isEqualTo(QUESTIONS.size());
    // and one event-bus request to the embedding verticle, not one a question
    assertThat(embedRequests).containsExactly(QUESTIONS.size());
    assertThat(stack.qdrant.callCount("QueryBatch") - batchesBefore).isEqualTo(1);
    assertThat(stack.qdrant.callCount("Query") - queriesBefore).isZero();
  }

  @Test
  @DisplayName("a turn's questions whose one call failed for good (an answer that is not JSON) are asked again one by one, and each gets its answer")
  void refusedTogetherAskedAlone(Vertx vertx) {
    start(vertx, "10000");
    RetrievalService service = stack.app.retrieval();
    await(service.retrieve(request(service, "warm up"), "q0", deadline()));
    stack.cohere.reset();
    embedRequests.clear();
    stack.cohere.badJsonNext(1);

    Promise<List<Future<RetrievalResult>>> asked = Promise.promise();
    vertx.getOrCreateContext().runOnContext(turn -> asked.complete(QUESTIONS.stream()
        .map(question -> service.retrieve(request(service, question), "q", deadline())).toList()));
    List<Future<RetrievalResult>> answers = await(asked.future());

    for (int i = 0; i < QUESTIONS.size(); i++) {
      assertThat(await(answers.get(i)).results()).extracting(RetrievedChunk::id)
          .containsExactlyElementsOf(expectedIds(QUESTIONS.get(i)));
    }
    // asked again one by one; the verticle, given the four in one turn, makes one call of them
    assertThat(embedRequests).containsExactly(4, 1, 1, 1, 1);
    assertThat(stack.cohere.callCount()).isEqualTo(2);
    assertThat(stack.cohere.inputCount()).isEqualTo(2L * QUESTIONS.size());
  }

  @Test
  @DisplayName("questions of different turns are not held back: each makes its own calls")
  void separateTurns(Vertx vertx) {
    start(vertx, "10000");
    RetrievalService service = stack.app.retrieval();
    await(service.retrieve(request(service, "warm up"), "q0", deadline()));
    stack.cohere.reset();
    int queriesBefore = stack.qdrant.callCount("Query");
    int batchesBefore = stack.qdrant.callCount("QueryBatch");

    for (String question : QUESTIONS.subList(0, 2)) {
      assertThat(await(service.retrieve(request(service, question), "q", deadline())).results())
          .extracting(RetrievedChunk::id).containsExactlyElementsOf(expectedIds(question));
    }
    assertThat(stack.cohere.callCount()).isEqualTo(2);
    assertThat(stack.qdrant.callCount("Query") - queriesBefore).isEqualTo(2);
    assertThat(stack.qdrant.callCount("QueryBatch") - batchesBefore).isZero();
  }

  @Test
  @DisplayName("questions of later turns that waited out the window for one Cohere call share one QueryBatch too")
  void windowThenOneSearch(Vertx vertx) {
    start(vertx, Map.of("RAG_COALESCE_WINDOW_MS", "100"));
    RetrievalService service = stack.app.retrieval();
    await(service.retrieve(request(service, "warm up"), "q0", deadline()));
    stack.cohere.reset();
    stack.cohere.delay(Duration.ofMillis(400));
    embedRequests.clear();
    int queriesBefore = stack.qdrant.callCount("Query");
    int batchesBefore = stack.qdrant.callCount("QueryBatch");

    // the first question's Cohere call is in flight while the others arrive, one turn each, on its loop
    io.vertx.core.Context loop = vertx.getOrCreateContext();
    List<Future<RetrievalResult>> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String question = QUESTIONS.get(i);
      Promise<Future<RetrievalResult>> asked = Promise.promise();
      loop.runOnContext(turn -> asked.complete(service.retrieve(request(service, question), "q", deadline())));
      answers.add(await(asked.future()));
    }

    for (int i = 0; i < 3; i++) {
      assertThat(await(answers.get(i)).results()).extracting(RetrievedChunk::id)
          .containsExactlyElementsOf(expectedIds(QUESTIONS.get(i)));
    }
    // the first alone; the two that waited the window together, then searched together: the
    // searches of one embedding answer are asked in one turn of the loop
    assertThat(stack.cohere.callCount()).isEqualTo(2);
    assertThat(stack.cohere.inputCount()).isEqualTo(3);
    assertThat(embedRequests).containsExactly(1, 2);
    assertThat(stack.qdrant.callCount("Query") - queriesBefore).isEqualTo(1);
    assertThat(stack.qdrant.callCount("QueryBatch") - batchesBefore).isEqualTo(1);
  }

  private static RetrievalRequest request(RetrievalService service, String question) {
    return service.parser().parse(new JsonObject().put("query", question).put("top_k", 3).put("score_threshold", 0));
  }

  private static Deadline deadline() {
    return Deadline.in(Duration.ofSeconds(10));
  }

  private List<String> expectedIds(String question) {
    return TestStack.bruteForce(question, 3, 0).stream().map(hit -> stack.ids.get(hit.getKey())).toList();
  }
}
