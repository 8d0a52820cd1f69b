package dev.ragretrieval.http;

import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.regex.Pattern;

/**
 * The caller's X-Request-Id (ingress-nginx sets one) or a new one, on the response and on the
 * request log line. A value that is too long or has odd characters is replaced, not logged.
 */
final class RequestIdHandler implements Handler<RoutingContext> {

  static final String HEADER = "X-Request-Id";
  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._:/+=-]{1,128}");

  private final RagMetrics metrics;

  private RequestIdHandler(RagMetrics metrics) {
    this.metrics = metrics;
  }

  static RequestIdHandler create(RagMetrics metrics) {
    return new RequestIdHandler(metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    String given = ctx.request().getHeader(HEADER);
    String id = given != null && SAFE.matcher(given).matches() ? given : Ids.random();
    Exchange.of(ctx, metrics).requestId(id);
    ctx.response().putHeader(HEADER, id);
    ctx.next();
  }
}
