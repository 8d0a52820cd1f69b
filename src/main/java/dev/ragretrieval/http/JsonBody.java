package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.jackson.JacksonCodec;
import io.vertx.ext.web.MIMEHeader;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;

/**
 * A JSON request body: {@link #create} is the filter that lets only an uncompressed JSON media
 * type on (415 otherwise); {@link #of} decodes the body the route's BodyHandler read, as the first
 * step of the route's chain, so a body error is answered like any later step's error.
 */
final class JsonBody implements Handler<RoutingContext> {

  /**
   * Jackson's streaming parser straight into JsonObject and JsonArray, as vert.x's own codec without
   * databind does it: the same values, the same refusal of trailing content. Vert.x's default
   * (databind) set up a root deserializer and its configuration for each body, most of this step's
   * JFR samples for a 70-byte question.
   */
  private static final JacksonCodec STREAMING = new JacksonCodec();

  private final RagMetrics metrics;

  private JsonBody(RagMetrics metrics) {
    this.metrics = metrics;
  }

  /** The media type filter; it runs on its own route, before the BodyHandler reads anything. */
  static JsonBody create(RagMetrics metrics) {
    return new JsonBody(metrics);
  }

  @Override
  public void handle(RoutingContext ctx) {
    MIMEHeader type = ctx.parsedHeaders().contentType();
    String value = type == null ? "" : type.value().toLowerCase(Locale.ROOT);
    if (!value.equals("application/json") && !(value.startsWith("application/") && value.endsWith("+json"))) {
      Exchange.of(ctx, metrics).fail(new ServiceException(ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          "the request body must be JSON (Content-Type: application/json)"));
      return;
    }
    String coding = ctx.request().getHeader(HttpHeaders.CONTENT_ENCODING);
    if (coding != null && !coding.isBlank() && !coding.strip().equalsIgnoreCase("identity")) {
      // compressed bytes would otherwise be read as text and refused as "not valid UTF-8"; RFC 9110
      // (15.5.16) answers a content coding the server does not read with 415 and Accept-Encoding
      ctx.response().putHeader(HttpHeaders.ACCEPT_ENCODING, "identity");
      Exchange.of(ctx, metrics).fail(new ServiceException(ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          "the request body must not be compressed (Content-Encoding: " + shown(coding) + "); send it as plain JSON"));
      return;
    }
    ctx.next();
  }

  /** A client's header value as an error message shows it: short enough to read. */
  private static String shown(String value) {
    String strip = value.strip();
    return strip.length() <= 40 ? strip : strip.substring(0, 40) + "...";
  }

  /** The body as a JSON object, or INVALID_REQUEST saying what is wrong with it. */
  static Future<JsonObject> of(RoutingContext ctx) {
    Buffer buffer = ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      return invalid("the request body is empty; send a JSON object");
    }
    if (!Utf8.valid(buffer)) {
      return invalid("the request body is not valid UTF-8");
    }
    Object value;
    try {
      value = STREAMING.fromBuffer(buffer);
    } catch (DecodeException e) {
      return invalid("the request body is not valid JSON");
    }
    if (!Utf8.wellFormed(value)) {
      return invalid("the request body is not valid UTF-8: it escapes a lone surrogate (\\uD800-\\uDFFF)");
    }
    return value instanceof JsonObject json ? Future.succeededFuture(json)
        : invalid("the request body must be a JSON object");
  }

  private static Future<JsonObject> invalid(String message) {
    return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, message,
        new JsonObject().put("field", "body")));
  }
}
