package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.RequestParser;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalService;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** {@code GET /v1/facets?key=&collection=&limit=}: the values of one filter key and their counts. */
final class FacetsHandler implements Handler<RoutingContext> {

  private final RetrievalService service;
  private final RagMetrics metrics;

  private FacetsHandler(RetrievalService service, RagMetrics metrics) {
    this.service = service;
    this.metrics = metrics;
  }

  static FacetsHandler create(RetrievalService service, RagMetrics metrics) {
    return new FacetsHandler(service, metrics);
  }

  /** The parameters, checked before anything is asked of the store. */
  private record Query(String key, String collection, int limit) {}

  @Override
  public void handle(RoutingContext ctx) {
    Exchange exchange = Exchange.of(ctx, metrics);
    Future.succeededFuture(ctx)
        .map(this::query)
        .compose(q -> service.facets(q.collection(), q.key(), q.limit(), AdmissionHandler.deadline(ctx))
            .map(counts -> ResultJson.facets(q.key(), q.collection(), counts)))
        .onSuccess(exchange::json)
        .onFailure(exchange::fail);
  }

  private Query query(RoutingContext ctx) {
    RequestParser parser = service.parser();
    return new Query(parser.filterKey(ctx.request().getParam("key")),
        parser.collection(ctx.request().getParam("collection")),
        limit(ctx.request().getParam("limit")));
  }

  private static int limit(String raw) {
    if (raw == null) {
      return 100;
    }
    try {
      int limit = Integer.parseInt(raw.trim());
      if (limit >= 1 && limit <= 1000) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // falls through to the same answer as out of range
    }
    throw new ServiceException(ErrorCode.INVALID_REQUEST, "'limit' must be an integer between 1 and 1000",
        new JsonObject().put("field", "limit"));
  }
}
