package dev.ragretrieval.rerank;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.http.RetryAfter;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.upstream.Retry;
import dev.ragretrieval.upstream.Upstream;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * Cohere Rerank v2: {@code POST /v2/rerank} with {model, query, documents, top_n}; the answer's
 * {@code results} hold {index, relevance_score}, most relevant first. Reuses the embedding
 * client's endpoint, key, TLS trust, timeout, retry and circuit settings: the same provider,
 * failing the same ways. 429 (honouring Retry-After), 5xx and unreachable are retried within the
 * request's deadline; a rejected key or a malformed answer is not.
 */
public final class CohereReranker implements Reranker {

  private static final String NAME = "cohere_rerank";
  private static final String DISPLAY = "Cohere Rerank";

  private final String url;
  private final Optional<String> apiKey;
  private final String model;
  private final WebClient client;
  private final Upstream upstream;

  public CohereReranker(Vertx vertx, AppConfig.Embedding embedding, AppConfig.Rerank rerank, RagMetrics metrics) {
    String base = embedding.cohere().baseUrl();
    this.url = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v2/rerank";
    this.apiKey = embedding.cohere().apiKey().filter(key -> !key.isBlank());
    this.model = rerank.model();
    WebClientOptions options = new WebClientOptions().setUserAgent("rag-retrieval").setKeepAlive(true).setVerifyHost(true);
    embedding.caCert().ifPresent(path -> options.setTrustOptions(new PemTrustOptions().addCertPath(path.toString())));
    this.client = WebClient.create(vertx, options, new PoolOptions().setHttp1MaxSize(16));
    this.upstream = new Upstream(vertx, metrics, Upstream.Kind.EMBEDDING, NAME, DISPLAY,
        new Retry.Policy(embedding.maxAttempts(), embedding.initialBackoff(), embedding.maxBackoff()),
        embedding.circuit(), embedding.timeout());
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public Future<List<RerankHit>> rerank(String query, List<String> documents, int topN, Deadline deadline) {
    if (documents.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    JsonObject body = new JsonObject()
        .put("model", model)
        .put("query", query)
        .put("documents", new JsonArray(new ArrayList<>(documents)))
        .put("top_n", Math.min(topN, documents.size()));
    return upstream.call("rerank", documents.size(), deadline, budget -> attempt(body, documents.size(), budget, deadline));
  }

  @Override
  public Future<Void> close() {
    upstream.close();
    client.close();
    return Future.succeededFuture();
  }

  /** One call; {@code timeout} is the seam's per-attempt budget, never past the deadline. */
  private Future<List<RerankHit>> attempt(JsonObject body, int sent, long timeout, Deadline deadline) {
    long left = deadline.remainingMillis();
    HttpRequest<Buffer> request = client.postAbs(url)
        .timeout(timeout)
        .putHeader("Content-Type", "application/json")
        .putHeader("Accept", "application/json");
    apiKey.ifPresent(request::bearerTokenAuthentication);
    return request.sendBuffer(body.toBuffer()).transform(done -> {
      if (done.failed()) {
        if (done.cause() instanceof TimeoutException) {
          return Future.failedFuture(timeout >= left ? deadline.timeout(DISPLAY)
              : new ServiceException(ErrorCode.TIMEOUT, DISPLAY + " did not answer within " + timeout + " ms"));
        }
        return Future.failedFuture(new ServiceException(ErrorCode.CONNECTION_ERROR, "cannot reach " + DISPLAY));
      }
      try {
        return Future.succeededFuture(hits(done.result(), sent));
      } catch (ServiceException e) {
        return Future.failedFuture(e);
      }
    });
  }

  private static List<RerankHit> hits(HttpResponse<Buffer> response, int sent) {
    int status = response.statusCode();
    if (status == 429) {
      Integer wait = RetryAfter.seconds(response.getHeader("Retry-After"), Instant.now());
      throw new ServiceException(ErrorCode.RATE_LIMIT, DISPLAY + " is rate-limiting rerank requests",
          null, wait == null ? 1 : wait);
    }
    if (status == 401 || status == 403) {
      throw ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, DISPLAY + " rejected the API key");
    }
    if (status >= 500) {
      throw new ServiceException(ErrorCode.UPSTREAM_ERROR, DISPLAY + " failed with HTTP " + status);
    }
    if (status < 200 || status >= 300) {
      throw ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, DISPLAY + " refused the request (HTTP " + status + ")");
    }
    try {
      JsonArray results = response.bodyAsJsonObject().getJsonArray("results");
      List<RerankHit> hits = new ArrayList<>(results.size());
      for (int i = 0; i < results.size(); i++) {
        JsonObject result = results.getJsonObject(i);
        int index = result.getInteger("index");
        if (index < 0 || index >= sent) {
          throw new IllegalArgumentException("index out of range");
        }
        hits.add(new RerankHit(index, result.getNumber("relevance_score").doubleValue()));
      }
      return hits;
    } catch (RuntimeException malformed) {
      throw ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, DISPLAY + " answered with malformed JSON");
    }
  }
}
