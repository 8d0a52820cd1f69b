package dev.ragretrieval.http;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The server's edge: its options (request line and header limits, HTTP/1.1 only), the connection
 * limits of {@link ConnectionGuard}, and the answers vert.x would otherwise give with an empty
 * body (414, 431, a malformed request) or not give at all (a request target that is not UTF-8),
 * all in the contract's error shape.
 */
final class HttpEdge {

  private final AppConfig.Http config;
  private final ConnectionGuard guard;
  private final RagMetrics metrics;

  /** {@code guard} is the process's one: the connection limits hold across all instances. */
  HttpEdge(AppConfig.Http config, ConnectionGuard guard, RagMetrics metrics) {
    this.config = config;
    this.metrics = metrics;
    this.guard = guard;
  }

  /**
   * h2c is off: the ingress speaks HTTP/1.1 to the pods, and the limits here are HTTP/1.1's
   * (an HTTP/2 stream that breaks a header limit is reset, with no body to carry an error).
   */
  HttpServerOptions options() {
    return new HttpServerOptions()
        .setHost(config.host())
        // vert.x gives each server on port 0 a port of its own; a negative port is one random
        // port shared by every server asking for it, so all instances serve the port reported
        .setPort(config.port() == 0 ? -1 : config.port())
        .setHttp2ClearTextEnabled(false)
        // no WebSocket routes: without these, vert.x puts a WebSocket extension handler in every
        // connection's pipeline, and it looks at each request's and response's headers
        .setPerMessageWebSocketCompressionSupported(false)
        .setPerFrameWebSocketCompressionSupported(false)
        .setMaxInitialLineLength(config.edge().uriLimitBytes())
        .setMaxHeaderSize(config.edge().headerLimitBytes());
  }

  /** The router's first handler. */
  void track(RoutingContext ctx) {
    guard.track(ctx);
  }

  HttpServer install(HttpServer server, Router router) {
    return server
        .connectionHandler(guard::connected)
        .invalidRequestHandler(this::invalid)
        .requestHandler(guard.requests(request -> {
          String problem = Utf8.uriProblem(request.uri());
          if (problem != null) {
            RawErrors.send(request, new ServiceException(ErrorCode.INVALID_REQUEST, problem,
                new JsonObject().put("field", "uri")), metrics);
            return;
          }
          router.handle(request);
        }));
  }

  /** What vert.x's default invalid-request handler answers, with the contract's body. */
  private void invalid(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    if (cause instanceof TooLongHttpLineException) {
      RawErrors.send(request, new ServiceException(ErrorCode.INVALID_REQUEST,
          "the request line is over the limit of " + config.edge().uriLimitBytes() + " bytes",
          new JsonObject().put("limit_bytes", config.edge().uriLimitBytes())), 414, metrics);
    } else if (cause instanceof TooLongHttpHeaderException) {
      RawErrors.send(request, new ServiceException(ErrorCode.INVALID_REQUEST,
          "the request headers are over the limit of " + config.edge().headerLimitBytes() + " bytes",
          new JsonObject().put("limit_bytes", config.edge().headerLimitBytes())), 431, metrics);
    } else {
      RawErrors.send(request, new ServiceException(ErrorCode.INVALID_REQUEST,
          "the request is not valid HTTP/1.1"), metrics);
    }
  }
}
