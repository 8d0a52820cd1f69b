package dev.ragretrieval.cli;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;
import java.time.Duration;

/**
 * POST /v1/retrieve on a running server, for commands given {@code --url}: the server's own store
 * and embedder answer, so nothing here opens RAG_DATA_DIR. An error answer becomes the
 * ServiceException it was on the server (same code, same message).
 */
final class RemoteRetrieval implements AutoCloseable {

  private final WebClient client;
  private final String endpoint;
  private final String apiKey;
  private final Duration timeout;

  RemoteRetrieval(Vertx vertx, String baseUrl, String apiKey, Duration timeout) {
    URI uri;
    try {
      uri = URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
    } catch (IllegalArgumentException e) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "--url must be an http(s) URL such as http://localhost:8080");
    }
    if (uri.getScheme() == null || !uri.getScheme().matches("(?i)https?") || uri.getHost() == null) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "--url must be an http(s) URL such as http://localhost:8080");
    }
    this.endpoint = uri.resolve("v1/retrieve").toString();
    this.apiKey = apiKey;
    this.timeout = timeout;
    this.client = WebClient.create(vertx, new WebClientOptions().setUserAgent("rag-retrieval-cli/1.0"));
  }

  /** The server's JSON answer to one retrieve request. */
  Future<JsonObject> retrieve(JsonObject body) {
    var request = client.postAbs(endpoint).timeout(timeout.toMillis()).putHeader("Accept", "application/json");
    if (apiKey != null && !apiKey.isBlank()) {
      request.putHeader("Authorization", "Bearer " + apiKey);
    }
    return request.sendJsonObject(body)
        .recover(err -> Future.failedFuture(new ServiceException(ErrorCode.CONNECTION_ERROR,
            "cannot reach the server at " + endpoint + " (" + firstLine(err.getMessage()) + ")")))
        .compose(this::answer);
  }

  private Future<JsonObject> answer(HttpResponse<Buffer> response) {
    JsonObject json;
    try {
      json = response.body() == null ? null : response.bodyAsJsonObject();
    } catch (DecodeException | ClassCastException e) {
      json = null;
    }
    if (response.statusCode() == 200 && json != null) {
      return Future.succeededFuture(json);
    }
    JsonObject error = json == null ? null : json.getJsonObject("error");
    if (error != null) {
      return Future.failedFuture(new ServiceException(ErrorCode.fromWire(error.getString("code")), error.getString("message", "the server refused"),
          error.getValue("details")));
    }
    return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR,
        "the server at " + endpoint + " answered HTTP " + response.statusCode()));
  }

  private static String firstLine(String message) {
    return message == null ? "connection failed" : message.lines().findFirst().orElse("connection failed");
  }

  @Override
  public void close() {
    client.close();
  }
}
