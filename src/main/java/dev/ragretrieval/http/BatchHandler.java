package dev.ragretrieval.http;

import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * {@code POST /v1/retrieve/batch}: several questions at once; every slot answers on its own (a
 * failed slot is an error in its place). JSON waits for all of them; a stream sends each as it
 * completes.
 */
final class BatchHandler implements Handler<RoutingContext> {

  private final RetrievalService service;
  private final RagMetrics metrics;

  private BatchHandler(RetrievalService service, RagMetrics metrics) {
    this.service = service;
    this.metrics = metrics;
  }

  static BatchHandler create(RetrievalService service, RagMetrics metrics) {
    return new BatchHandler(service, metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    Exchange exchange = Exchange.of(ctx, metrics);
    long started = System.nanoTime();
    Deadline deadline = AdmissionHandler.deadline(ctx);
    JsonBody.of(ctx)
        .map(service.parser()::parseBatch)
        .onSuccess(slots -> {
          List<String> queryIds = slots.stream().map(s -> Ids.random()).toList();
          List<Future<RetrievalResult>> results = service.retrieveBatch(slots, queryIds, deadline);
          StreamFormat format = StreamFormat.negotiate(ctx);
          if (format == StreamFormat.JSON) {
            answer(exchange, results, queryIds, started);
          } else {
            stream(exchange, format, results, queryIds, started);
          }
        })
        .onFailure(exchange::fail);
  }

  /** All slots in input order, once every one has finished. */
  private static void answer(Exchange exchange, List<Future<RetrievalResult>> results, List<String> queryIds,
      long started) {
    Future.join(results).onComplete(all -> {
      JsonArray answers = new JsonArray();
      for (int i = 0; i < results.size(); i++) {
        answers.add(slotJson(results.get(i), queryIds.get(i)));
      }
      exchange.json(new JsonObject()
          .put("results", answers)
          .put("execution_time_ms", ResultJson.ms((System.nanoTime() - started) / 1e6)));
    });
  }

  /** One event per slot as it completes, then done. */
  private static void stream(Exchange exchange, StreamFormat format, List<Future<RetrievalResult>> results,
      List<String> queryIds, long started) {
    exchange.startStream(format);
    for (int i = 0; i < results.size(); i++) {
      int index = i;
      results.get(i).onComplete(slot -> exchange.event(slot.succeeded() ? "result" : "error", index,
          slotData(results.get(index), queryIds.get(index))));
    }
    Future.join(results).onComplete(all -> {
      long failed = results.stream().filter(Future::failed).count();
      exchange.event("done", new JsonObject()
          .put("count", results.size())
          .put("succeeded", results.size() - failed)
          .put("failed", failed)
          .put("execution_time_ms", ResultJson.ms((System.nanoTime() - started) / 1e6)));
      exchange.end();
    });
  }

  private static JsonObject slotJson(Future<RetrievalResult> slot, String queryId) {
    return slot.succeeded() ? ResultJson.result(slot.result())
        : ResultJson.error(ServiceException.from(slot.cause()), queryId);
  }

  private static JsonObject slotData(Future<RetrievalResult> slot, String queryId) {
    return slot.succeeded() ? ResultJson.result(slot.result())
        : ResultJson.errorObject(ServiceException.from(slot.cause()), queryId);
  }
}
