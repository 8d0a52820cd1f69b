package dev.ragretrieval.eval;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Where the questions go: the pipeline in this process, or a running service over HTTP. Both take
 * retrieve requests (the API's JSON bodies) and answer with the API's JSON, so scoring is the same.
 */
public interface Retriever extends AutoCloseable {

  /** One slot's answer: the API's RetrievalResult JSON, or its error object ({@code code}, {@code message}). */
  record Answer(JsonObject result, JsonObject error) {
    public static Answer of(JsonObject result) {
      return new Answer(result, null);
    }

    public static Answer failed(JsonObject error) {
      return new Answer(null, error);
    }
  }

  /** How many requests one call may carry. */
  int batchSize();

  /** One answer per request, in order; the future fails only when the whole call does. */
  Future<List<Answer>> retrieve(List<JsonObject> requests);

  /** Where the answers come from, for the report ("in-process" or the URL). */
  String target();

  @Override
  default void close() {}
}
