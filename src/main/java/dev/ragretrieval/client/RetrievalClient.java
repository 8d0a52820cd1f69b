package dev.ragretrieval.client;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A running server's POST /v1/retrieve and /v1/retrieve/batch, for the commands given {@code --url}
 * (query, eval): the server's own store and embedder answer. The key goes as
 * {@code Authorization: Bearer}. Every failure is a ServiceException that names the server: an
 * error answer keeps the server's code ({@link ErrorCode#fromWire}), its message and details; any
 * other answer is UPSTREAM_ERROR; no answer at all is CONNECTION_ERROR ("cannot reach ...").
 */
public final class RetrievalClient implements AutoCloseable {

  private static final long MAX_CONNECT_MILLIS = 30_000;

  private final WebClient client;
  private final String baseUrl;
  private final String apiKey;
  private final Duration timeout;

  /** Whether {@code url} is an absolute http(s) URL with a host; check it before making a client. */
  public static boolean isHttpUrl(String url) {
    try {
      URI uri = URI.create(url);
      return uri.getScheme() != null && uri.getScheme().matches("(?i)https?") && uri.getHost() != null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * {@code baseUrl}: http(s)://host:port[/prefix]; {@code apiKey}: null or blank sends none;
   * {@code timeout}: each call's limit (connecting: at most 30 s of it).
   */
  public RetrievalClient(Vertx vertx, String baseUrl, String apiKey, Duration timeout) {
    if (!isHttpUrl(baseUrl)) {
      throw new IllegalArgumentException("not an http(s) URL with a host: " + baseUrl);
    }
    this.baseUrl = baseUrl.replaceFirst("/+$", "");
    this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
    this.timeout = timeout;
    this.client = WebClient.create(vertx, new WebClientOptions().setUserAgent("rag-retrieval-cli/1.0")
        .setConnectTimeout((int) Math.min(timeout.toMillis(), MAX_CONNECT_MILLIS)).setVerifyHost(true));
  }

  /** The server, as given without a trailing slash: what the messages and reports name. */
  public String baseUrl() {
    return baseUrl;
  }

  /** The server's RetrievalResult JSON for one retrieve request. */
  public Future<JsonObject> retrieve(JsonObject request) {
    return post("/v1/retrieve", request);
  }

  /** One slot per request, in order: a RetrievalResult, or {@code {"error": {"code", "message", ...}}}. */
  public Future<List<JsonObject>> retrieveBatch(List<JsonObject> requests) {
    return post("/v1/retrieve/batch", new JsonObject().put("queries", new JsonArray(List.copyOf(requests))))
        .compose(body -> slots(body, requests.size()));
  }

  private Future<JsonObject> post(String path, JsonObject body) {
    var request = client.postAbs(baseUrl + path).timeout(timeout.toMillis()).putHeader("Accept", "application/json");
    if (apiKey != null) {
      request.putHeader("Authorization", "Bearer " + apiKey);
    }
    return request.sendJsonObject(body)
        .recover(err -> Future.failedFuture(new ServiceException(ErrorCode.CONNECTION_ERROR,
            "cannot reach " + baseUrl + " (" + reason(err) + ")")))
        .compose(this::answer);
  }

  private Future<JsonObject> answer(HttpResponse<Buffer> response) {
    JsonObject json = jsonObject(response);
    int status = response.statusCode();
    if (status == 200 && json != null) {
      return Future.succeededFuture(json);
    }
    if (json != null && json.getValue("error") instanceof JsonObject error) {
      String code = error.getString("code");
      String message = baseUrl + " answered HTTP " + status + (code == null ? "" : " " + code)
          + ": " + error.getString("message", "no message");
      return Future.failedFuture(new ServiceException(ErrorCode.fromWire(code), message, error.getValue("details")));
    }
    return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR,
        baseUrl + " answered HTTP " + status + (status == 200 ? " without a JSON object" : "")));
  }

  private Future<List<JsonObject>> slots(JsonObject body, int expected) {
    List<JsonObject> slots = new ArrayList<>(expected);
    if (body.getValue("results") instanceof JsonArray results && results.size() == expected) {
      for (Object slot : results) {
        if (slot instanceof JsonObject object) {
          slots.add(object);
        }
      }
    }
    if (slots.size() != expected) {
      return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR,
          baseUrl + " answered the batch without one result per question"));
    }
    return Future.succeededFuture(slots);
  }

  private static JsonObject jsonObject(HttpResponse<Buffer> response) {
    try {
      return response.body() == null ? null : response.bodyAsJsonObject();
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
  }

  /** Why no answer came, as one line: never a class name or a stack trace. */
  private static String reason(Throwable err) {
    if (err.getClass().getSimpleName().contains("Timeout")) {
      return "timed out";
    }
    String message = err.getMessage();
    return message == null || message.isBlank() ? "connection failed" : message.lines().findFirst().orElseThrow();
  }

  @Override
  public void close() {
    client.close();
  }
}
