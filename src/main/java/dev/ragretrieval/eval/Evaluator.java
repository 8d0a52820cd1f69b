package dev.ragretrieval.eval;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends the tests to a {@link Retriever} in batches, one batch after another, and scores each
 * answer. Every request asks for the top k with score_threshold 0 (accuracy is about ranking, not
 * the service's default cut-off), the collection, and the search mode when one is chosen.
 */
public final class Evaluator {

  /** {@code collection} null = the service's default; {@code searchMode} null = the service's choice. */
  public record Options(int k, String collection, String searchMode) {}

  private final Retriever retriever;
  private final Options options;

  public Evaluator(Retriever retriever, Options options) {
    this.retriever = retriever;
    this.options = options;
  }

  public Future<EvalReport> run(List<EvalCase> tests) {
    String executedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    List<TestResult> results = new ArrayList<>();
    String[] answeredFrom = {options.collection()};
    Future<Void> chain = Future.succeededFuture();
    int size = Math.max(1, retriever.batchSize());
    for (int from = 0; from < tests.size(); from += size) {
      List<EvalCase> batch = tests.subList(from, Math.min(tests.size(), from + size));
      chain = chain.compose(v -> retriever.retrieve(batch.stream().map(this::request).toList()))
          .map(answers -> {
            for (int i = 0; i < batch.size(); i++) {
              JsonObject result = answers.get(i).result();
              if (answeredFrom[0] == null && result != null) {
                answeredFrom[0] = result.getString("collection"); // the service fills in its default
              }
              results.add(TestResult.score(batch.get(i), options.k(), answers.get(i)));
            }
            return null;
          });
    }
    return chain.map(v -> new EvalReport(executedAt, retriever.target(),
        answeredFrom[0] == null ? "(service default)" : answeredFrom[0], options.k(),
        options.searchMode(), results));
  }

  /** The retrieve request of one test: the API's JSON body. */
  public JsonObject request(EvalCase test) {
    JsonObject body = new JsonObject().put("query", test.query()).put("top_k", options.k()).put("score_threshold", 0.0);
    if (options.collection() != null) {
      body.put("collection", options.collection());
    }
    if (options.searchMode() != null) {
      body.put("search_mode", options.searchMode());
    }
    return body;
  }
}
