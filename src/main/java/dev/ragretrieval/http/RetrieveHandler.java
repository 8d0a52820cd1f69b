package dev.ragretrieval.http;

import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalRequest;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** {@code POST /v1/retrieve}: one question; a JSON answer, or a stream when the client accepts one. */
final class RetrieveHandler implements Handler<RoutingContext> {

  private final RetrievalService service;
  private final RagMetrics metrics;
  private final QuestionStream stream;

  private RetrieveHandler(RetrievalService service, RagMetrics metrics) {
    this.service = service;
    this.metrics = metrics;
    this.stream = new QuestionStream(service);
  }

  static RetrieveHandler create(RetrievalService service, RagMetrics metrics) {
    return new RetrieveHandler(service, metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    Exchange exchange = Exchange.of(ctx, metrics).queryId(Ids.random());
    StreamFormat format = StreamFormat.negotiate(ctx);
    Deadline deadline = AdmissionHandler.deadline(ctx);
    JsonBody.of(ctx)
        .compose(service::validate)
        .onSuccess(request -> {
          exchange.query(request.query());
          if (format == StreamFormat.JSON) {
            json(exchange, request, deadline);
          } else {
            stream.answer(exchange, format, request, deadline);
          }
        })
        .onFailure(exchange::fail);
  }

  private void json(Exchange exchange, RetrievalRequest request, Deadline deadline) {
    service.retrieve(request, exchange.queryId(), deadline)
        .map(exchange::record)
        .map(ResultJson::encode)
        .onSuccess(exchange::json)
        .onFailure(exchange::fail);
  }
}
