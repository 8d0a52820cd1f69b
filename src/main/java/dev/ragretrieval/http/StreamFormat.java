package dev.ragretrieval.http;

import io.vertx.ext.web.MIMEHeader;
import io.vertx.ext.web.RoutingContext;

/** How a client wants its answer, chosen from the Accept header (JSON unless it asks for a stream). */
enum StreamFormat {
  JSON("application/json"),
  SSE("text/event-stream"),
  NDJSON("application/x-ndjson");

  private final String contentType;

  StreamFormat(String contentType) {
    this.contentType = contentType;
  }

  String contentType() {
    return contentType;
  }

  /** The most preferred type the client accepts; the list is already ordered by weight. */
  static StreamFormat negotiate(RoutingContext ctx) {
    for (MIMEHeader accepted : ctx.parsedHeaders().accept()) {
      if (accepted.weight() <= 0) {
        continue;
      }
      String type = accepted.value().toLowerCase(java.util.Locale.ROOT);
      for (StreamFormat format : values()) {
        if (format.contentType.equals(type)) {
          return format;
        }
      }
      if (type.equals("*/*") || type.equals("application/*")) {
        return JSON;
      }
    }
    return JSON;
  }
}
