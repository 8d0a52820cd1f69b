package dev.ragretrieval.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;

/** The API's paths and their methods: labels for metrics and logs, and the answer to a wrong method. */
final class ApiRoutes {

  private static final List<HttpMethod> POST = List.of(HttpMethod.POST);
  /** A GET path also answers HEAD (RFC 9110 section 9.3.2: monitors and load balancers send it). */
  private static final List<HttpMethod> GET_HEAD = List.of(HttpMethod.GET, HttpMethod.HEAD);

  private static final Map<String, List<HttpMethod>> METHODS = Map.of(
      "/v1/retrieve", POST,
      // HEAD would open a stream and run a search only to drop the events: the stream takes GET alone
      "/v1/retrieve/stream", List.of(HttpMethod.GET),
      "/v1/context", POST,
      "/v1/retrieve/batch", POST,
      "/v1/facets", GET_HEAD,
      "/v1/collections", GET_HEAD,
      "/health/live", GET_HEAD,
      "/health/ready", GET_HEAD,
      "/metrics", GET_HEAD,
      "/openapi.yaml", GET_HEAD);

  private ApiRoutes() {}

  /** The methods a known path takes, the one to use first; null for any other path. */
  static List<HttpMethod> allowed(String path) {
    return METHODS.get(path);
  }

  /** A route template for labels and logs: raw paths would make unbounded label values. */
  static String label(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    return METHODS.containsKey(path) ? path : "unmatched";
  }
}
