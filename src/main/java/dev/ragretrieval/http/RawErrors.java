package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.ResultJson;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * Errors answered at the edge, before a request reaches the router (no RoutingContext, so no
 * {@link Exchange}): the contract's JSON body, then the connection is closed, because whatever
 * the client sends next on it (an unread body, the rest of a broken head) cannot be trusted.
 */
final class RawErrors {

  private RawErrors() {}

  static void send(HttpServerRequest request, ServiceException error, int status, RagMetrics metrics) {
    metrics.error("unmatched", error.code());
    HttpServerResponse response = request.response();
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .putHeader(HttpHeaders.CONNECTION, "close");
    if (error.code() == ErrorCode.OVERLOADED) {
      response.putHeader(HttpHeaders.RETRY_AFTER, String.valueOf(
          error.retryAfterSeconds() == null ? 1 : error.retryAfterSeconds()));
    }
    response.end(ResultJson.error(error, null).encode())
        .onComplete(written -> request.connection().close());
  }

  static void send(HttpServerRequest request, ServiceException error, RagMetrics metrics) {
    send(request, error, error.code().httpStatus(), metrics);
  }
}
