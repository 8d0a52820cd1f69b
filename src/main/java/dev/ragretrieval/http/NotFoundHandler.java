package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.regex.Pattern;

/** The last handler: 405 with the allowed method for a known path, 404 for anything else. */
final class NotFoundHandler implements Handler<RoutingContext> {

  private static final Pattern CONTROL_CHARS = Pattern.compile("\\p{Cntrl}");

  private final RagMetrics metrics;

  private NotFoundHandler(RagMetrics metrics) {
    this.metrics = metrics;
  }

  static NotFoundHandler create(RagMetrics metrics) {
    return new NotFoundHandler(metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpMethod allowed = ApiRoutes.allowed(ctx.normalizedPath());
    if (allowed != null && !allowed.equals(ctx.request().method())) {
      ctx.response().putHeader(HttpHeaders.ALLOW, allowed.name());
      Exchange.of(ctx, metrics).fail(new ServiceException(ErrorCode.INVALID_REQUEST,
          ctx.request().method().name() + " is not supported here; use " + allowed.name(),
          new JsonObject().put("allow", allowed.name())), 405);
      return;
    }
    Exchange.of(ctx, metrics).fail(new ServiceException(ErrorCode.NOT_FOUND, "no such path: " + safePath(ctx)));
  }

  /** The path as the client sent it, cut and stripped of control characters before it is echoed. */
  private static String safePath(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    path = path.length() > 200 ? path.substring(0, 200) + "..." : path;
    return CONTROL_CHARS.matcher(path).replaceAll("");
  }
}
