package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** Failures raised by vert.x handlers (body limit, CORS) or thrown by ours, in the contract's error shape. */
final class FailureHandler implements Handler<RoutingContext> {

  private final int bodyLimitBytes;
  private final RagMetrics metrics;
  private final NotFoundHandler notFound;

  private FailureHandler(int bodyLimitBytes, RagMetrics metrics) {
    this.bodyLimitBytes = bodyLimitBytes;
    this.metrics = metrics;
    this.notFound = NotFoundHandler.create(metrics);
  }

  static FailureHandler create(int bodyLimitBytes, RagMetrics metrics) {
    return new FailureHandler(bodyLimitBytes, metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    int status = ctx.statusCode();
    Exchange exchange = Exchange.of(ctx, metrics);
    if (failure instanceof ServiceException e) {
      exchange.fail(e);
    } else if (status == 413) {
      exchange.fail(new ServiceException(ErrorCode.PAYLOAD_TOO_LARGE,
          "the request body is over the limit of " + bodyLimitBytes + " bytes",
          new JsonObject().put("limit_bytes", bodyLimitBytes)));
    } else if (status == 403) {
      exchange.fail(new ServiceException(ErrorCode.INVALID_REQUEST, "this origin is not allowed"), 403);
    } else if (status == 400) {
      exchange.fail(new ServiceException(ErrorCode.INVALID_REQUEST, "the request is malformed"));
    } else if (status == 404) {
      notFound.handle(ctx);
    } else {
      // INTERNAL: the exchange logs it with its stack trace and the request id
      exchange.fail(ServiceException.from(failure));
    }
  }
}
