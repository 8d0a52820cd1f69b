package dev.ragretrieval.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;

/** {@code GET /openapi.yaml}: the spec shipped in the jar, read once; 404 in a build without it. */
final class OpenApiHandler implements Handler<RoutingContext> {

  private final Buffer spec;

  private OpenApiHandler(Buffer spec) {
    this.spec = spec;
  }

  /** {@code spec} from {@link #read}; null when the build has none. */
  static OpenApiHandler create(Buffer spec) {
    return new OpenApiHandler(spec);
  }

  /** Blocking: read it on a worker. */
  static Buffer read() throws IOException {
    try (InputStream in = OpenApiHandler.class.getClassLoader().getResourceAsStream("openapi.yaml")) {
      return in == null ? null : Buffer.buffer(in.readAllBytes());
    }
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (spec == null) {
      ctx.next();
      return;
    }
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/yaml").end(spec);
  }
}
