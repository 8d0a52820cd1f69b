package dev.ragretrieval.http;

import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** {@code POST /v1/context}: one question, answered with the assembled context. */
final class ContextHandler implements Handler<RoutingContext> {

  private final RetrievalService service;
  private final RagMetrics metrics;

  private ContextHandler(RetrievalService service, RagMetrics metrics) {
    this.service = service;
    this.metrics = metrics;
  }

  static ContextHandler create(RetrievalService service, RagMetrics metrics) {
    return new ContextHandler(service, metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    Exchange exchange = Exchange.of(ctx, metrics).queryId(Ids.random());
    Deadline deadline = AdmissionHandler.deadline(ctx);
    JsonBody.of(ctx)
        .compose(service::validate)
        .compose(request -> {
          exchange.query(request.query());
          return service.retrieve(request, exchange.queryId(), deadline);
        })
        .map(exchange::record)
        .map(service::assemble)
        .map(context -> ResultJson.encode(json -> ResultJson.context(json, context)))
        .onSuccess(exchange::json)
        .onFailure(exchange::fail);
  }
}
