package dev.ragretrieval.eval;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A running service over HTTP: POST {base}/v1/retrieve/batch, so the eval runs beside a server
 * (or against production) without opening its store. The key goes as {@code Authorization: Bearer}.
 */
public final class HttpRetriever implements Retriever {

  private final WebClient client;
  private final String batchUrl;
  private final String baseUrl;
  private final String apiKey;
  private final int batchSize;
  private final long timeoutMillis;

  /** {@code baseUrl}: http(s)://host:port[/prefix]; {@code apiKey} may be null. */
  public HttpRetriever(Vertx vertx, String baseUrl, String apiKey, int batchSize, long timeoutMillis) {
    this.baseUrl = baseUrl.replaceFirst("/+$", "");
    this.batchUrl = this.baseUrl + "/v1/retrieve/batch";
    this.apiKey = apiKey;
    this.batchSize = batchSize;
    this.timeoutMillis = timeoutMillis;
    this.client = WebClient.create(vertx, new WebClientOptions().setUserAgent("rag-retrieval-eval/1.0")
        .setConnectTimeout((int) Math.min(timeoutMillis, 30_000)).setVerifyHost(true));
  }

  /** Whether {@code url} is an absolute http(s) URL with a host (checked before any call). */
  public static boolean isHttpUrl(String url) {
    try {
      URI uri = URI.create(url);
      return uri.getScheme() != null && uri.getScheme().matches("(?i)https?") && uri.getHost() != null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  @Override
  public Future<List<Answer>> retrieve(List<JsonObject> requests) {
    var request = client.postAbs(batchUrl).timeout(timeoutMillis).putHeader("Accept", "application/json");
    if (apiKey != null) {
      request.putHeader("Authorization", "Bearer " + apiKey);
    }
    return request.sendJsonObject(new JsonObject().put("queries", new JsonArray(List.copyOf(requests))))
        .recover(err -> Future.failedFuture(new ServiceException(ErrorCode.CONNECTION_ERROR,
            "cannot reach " + baseUrl + " (" + reason(err) + ")")))
        .compose(response -> answers(response, requests.size()));
  }

  private Future<List<Answer>> answers(HttpResponse<Buffer> response, int expected) {
    JsonObject body;
    try {
      body = response.bodyAsJsonObject();
    } catch (DecodeException | ClassCastException e) {
      body = null;
    }
    if (response.statusCode() != 200) {
      return Future.failedFuture(serviceError(response.statusCode(), body));
    }
    JsonArray results = body == null ? null : body.getJsonArray("results");
    if (results == null || results.size() != expected) {
      return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR,
          baseUrl + " answered the batch without one result per question"));
    }
    List<Answer> answers = new ArrayList<>(expected);
    for (int i = 0; i < expected; i++) {
      JsonObject slot = results.getJsonObject(i);
      answers.add(slot.containsKey("error") ? Answer.failed(slot.getJsonObject("error")) : Answer.of(slot));
    }
    return Future.succeededFuture(answers);
  }

  /** The service's own error code and message when it sent the contract's error body. */
  private ServiceException serviceError(int status, JsonObject body) {
    JsonObject error = body == null ? null : body.getJsonObject("error");
    ErrorCode code = ErrorCode.fromWire(error == null ? null : error.getString("code"));
    String message = "HTTP " + status;
    if (error != null && error.getString("code") != null) {
      message = "HTTP " + status + " " + error.getString("code") + ": " + error.getString("message", "");
    }
    return new ServiceException(code, baseUrl + " answered " + message.strip());
  }

  private static String reason(Throwable err) {
    String name = err.getClass().getSimpleName();
    if (name.contains("Timeout")) {
      return "timed out";
    }
    String message = err.getMessage();
    return message == null ? name.toLowerCase(Locale.ROOT) : message.lines().findFirst().orElse(name);
  }

  @Override
  public String target() {
    return baseUrl;
  }

  @Override
  public void close() {
    client.close();
  }
}
