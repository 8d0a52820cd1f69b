package dev.ragretrieval.http;

import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.RetrievalRequest;
import dev.ragretrieval.retrieval.RetrievalService;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** {@code GET /v1/retrieve/stream}: one question from the query string, answered as SSE. */
final class StreamHandler implements Handler<RoutingContext> {

  private final RetrievalService service;
  private final RagMetrics metrics;
  private final QuestionStream stream;

  private StreamHandler(RetrievalService service, RagMetrics metrics) {
    this.service = service;
    this.metrics = metrics;
    this.stream = new QuestionStream(service);
  }

  static StreamHandler create(RetrievalService service, RagMetrics metrics) {
    return new StreamHandler(service, metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    Exchange exchange = Exchange.of(ctx, metrics).queryId(Ids.random());
    RetrievalRequest request;
    try {
      request = service.parser().parse(ctx.queryParams());
    } catch (ServiceException e) {
      exchange.fail(e);
      return;
    }
    exchange.query(request.query());
    stream.answer(exchange, StreamFormat.SSE, request, AdmissionHandler.deadline(ctx));
  }
}
