package dev.ragretrieval.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;

/** The API's paths and their methods: labels for metrics and logs, and the answer to a wrong method. */
final class ApiRoutes {

  private static final Map<String, HttpMethod> METHODS = Map.of(
      "/v1/retrieve", HttpMethod.POST,
      "/v1/retrieve/stream", HttpMethod.GET,
      "/v1/context", HttpMethod.POST,
      "/v1/retrieve/batch", HttpMethod.POST,
      "/v1/facets", HttpMethod.GET,
      "/v1/collections", HttpMethod.GET,
      "/health/live", HttpMethod.GET,
      "/health/ready", HttpMethod.GET,
      "/metrics", HttpMethod.GET,
      "/openapi.yaml", HttpMethod.GET);

  private ApiRoutes() {}

  /** The method a known path takes; null for any other path. */
  static HttpMethod allowed(String path) {
    return METHODS.get(path);
  }

  /** A route template for labels and logs: raw paths would make unbounded label values. */
  static String label(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    return METHODS.containsKey(path) ? path : "unmatched";
  }
}
