package dev.ragretrieval.http;

import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalService;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** {@code GET /v1/collections}: the collections a question may name. */
final class CollectionsHandler implements Handler<RoutingContext> {

  private final RetrievalService service;
  private final RagMetrics metrics;

  private CollectionsHandler(RetrievalService service, RagMetrics metrics) {
    this.service = service;
    this.metrics = metrics;
  }

  static CollectionsHandler create(RetrievalService service, RagMetrics metrics) {
    return new CollectionsHandler(service, metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    Exchange exchange = Exchange.of(ctx, metrics);
    service.collections(AdmissionHandler.deadline(ctx))
        .map(ResultJson::collections)
        .onSuccess(exchange::json)
        .onFailure(exchange::fail);
  }
}
