package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/** Lets a request on when no keys are configured or it presents one of them; 401 otherwise. */
final class AuthHandler implements Handler<RoutingContext> {

  private final ApiKeyAuth auth;
  private final RagMetrics metrics;

  private AuthHandler(ApiKeyAuth auth, RagMetrics metrics) {
    this.auth = auth;
    this.metrics = metrics;
  }

  static AuthHandler create(ApiKeyAuth auth, RagMetrics metrics) {
    return new AuthHandler(auth, metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (!auth.required()) {
      ctx.next();
      return;
    }
    String presented = ApiKeyAuth.presented(ctx.request().getHeader(HttpHeaders.AUTHORIZATION),
        ctx.request().getHeader("X-API-Key"));
    if (auth.accepts(presented)) {
      ctx.next();
      return;
    }
    // a caller who sent a key learns that it is the key, not the header, that is wrong (never which key)
    Exchange.of(ctx, metrics).fail(new ServiceException(ErrorCode.UNAUTHORIZED, presented == null
        ? "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"
        : "the API key is not valid"));
  }
}
