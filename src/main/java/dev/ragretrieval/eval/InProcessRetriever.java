package dev.ragretrieval.eval;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.retrieval.RequestParser;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.retrieval.RetrievalService;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

/** The batch path of POST /v1/retrieve/batch, without HTTP: parse, embed together, search, map to JSON. */
public final class InProcessRetriever implements Retriever {

  private final RetrievalService service;
  private final int batchSize;
  private final long timeoutMillis;

  /** {@code batchSize}: the configured batch limit; {@code timeoutMillis}: each batch's deadline. */
  public InProcessRetriever(RetrievalService service, int batchSize, long timeoutMillis) {
    this.service = service;
    this.batchSize = batchSize;
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  @Override
  public Future<List<Answer>> retrieve(List<JsonObject> requests) {
    List<RequestParser.Slot> slots;
    try {
      slots = service.parser().parseBatch(new JsonObject().put("queries", new JsonArray(List.copyOf(requests))));
    } catch (ServiceException e) {
      return Future.failedFuture(e);
    }
    List<String> queryIds = IntStream.range(0, slots.size()).mapToObj(i -> UUID.randomUUID().toString()).toList();
    Deadline deadline = Deadline.in(java.time.Duration.ofMillis(timeoutMillis));
    List<Future<RetrievalResult>> results = service.retrieveBatch(slots, queryIds, deadline);
    List<Future<Answer>> answers = IntStream.range(0, results.size())
        .mapToObj(i -> results.get(i).map(r -> Answer.of(ResultJson.result(r)))
            .otherwise(err -> Answer.failed(ResultJson.errorObject(ServiceException.from(err), queryIds.get(i)))))
        .toList();
    return Future.all(answers).map(all -> answers.stream().map(Future::result).toList());
  }

  @Override
  public String target() {
    return "in-process";
  }
}
