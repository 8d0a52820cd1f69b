package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The last handler: 405 with the allowed methods for a known path, 404 for anything else. */
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
    List<HttpMethod> allowed = ApiRoutes.allowed(ctx.normalizedPath());
    if (allowed != null && !allowed.contains(ctx.request().method())) {
      String allow = allowed.stream().map(HttpMethod::name).collect(Collectors.joining(", "));
      ctx.response().putHeader(HttpHeaders.ALLOW, allow);
      Exchange.of(ctx, metrics).fail(new ServiceException(ErrorCode.INVALID_REQUEST,
          ctx.request().method().name() + " is not supported here; use " + allowed.get(0).name(),
          new JsonObject().put("allow", allow)), 405);
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
