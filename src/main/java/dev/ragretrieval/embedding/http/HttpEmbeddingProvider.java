package dev.ragretrieval.embedding.http;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.upstream.Circuit;
import dev.ragretrieval.upstream.Retry;
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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedding API reached over HTTP with a JSON body and a bearer key (Cohere, OpenAI-compatible).
 * Owns what they share: per-call timeout (never beyond the deadline), retries of 429, 5xx and
 * connection failures, mapping of every failure to a client-safe {@link ServiceException}, count
 * and size checks of the answer, and metrics. Subclasses only build the body and read the answer.
 */
public abstract class HttpEmbeddingProvider implements EmbeddingProvider {

  private static final Logger LOG = LoggerFactory.getLogger(HttpEmbeddingProvider.class);
  private static final int MAX_UPSTREAM_MESSAGE = 300;

  private final String name;
  private final String displayName;
  private final String url;
  private final Optional<String> apiKey;
  private final String model;
  private final int dimension;
  private final int maxTextsPerCall;
  private final long callTimeoutMillis;
  private final WebClient client;
  private final Retry retry;
  private final Circuit circuit;

  /**
   * @param name metrics/retry label ("cohere", "openai")
   * @param displayName how messages name the upstream ("Cohere")
   * @param url the full endpoint URL (http or https; https trusts the JVM's CAs, or embedding.ca_cert)
   */
  protected HttpEmbeddingProvider(Vertx vertx, AppConfig.Embedding config, String name, String displayName,
      String url, Optional<String> apiKey, String model, int dimension, int maxTextsPerCall) {
    this.name = name;
    this.displayName = displayName;
    this.url = url;
    this.apiKey = apiKey.filter(key -> !key.isBlank());
    this.model = model;
    this.dimension = dimension;
    this.maxTextsPerCall = maxTextsPerCall;
    this.callTimeoutMillis = Math.max(1, config.timeout().toMillis());
    WebClientOptions options = new WebClientOptions().setUserAgent("rag-retrieval").setKeepAlive(true).setVerifyHost(true);
    // a self-hosted endpoint behind a private CA; Cohere and OpenAI themselves need the JVM's store only
    config.caCert().ifPresent(path -> options.setTrustOptions(new PemTrustOptions().addCertPath(path.toString())));
    this.client = WebClient.create(vertx, options, new PoolOptions().setHttp1MaxSize(32));
    this.retry = new Retry(vertx,
        new Retry.Policy(config.maxAttempts(), config.initialBackoff(), config.maxBackoff()), name);
    this.circuit = new Circuit(vertx, name, displayName, config.circuit());
  }

  /** Joins a configured base URL (with or without a trailing slash) and a path. */
  protected static String join(String baseUrl, String path) {
    String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    return base + path;
  }

  /** The JSON body for one call. */
  protected abstract JsonObject requestBody(List<String> texts, InputType inputType);

  /** The vectors of a 2xx body, in input order; any exception means a malformed answer. */
  protected abstract List<float[]> vectors(JsonObject body);

  /** The upstream's own error text in an error body, or null. */
  protected abstract String errorMessage(JsonObject body);

  @Override
  public String model() {
    return model;
  }

  @Override
  public int dimension() {
    return dimension;
  }

  @Override
  public int maxTextsPerCall() {
    return maxTextsPerCall;
  }

  @Override
  public Future<List<float[]>> embed(List<String> texts, InputType inputType, Deadline deadline) {
    if (texts.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    // a bad key, bad JSON or a wrong size fail as permanent: another attempt would not mend them
    return circuit.call(() -> retry.call(() -> attempt(texts, inputType, deadline), deadline));
  }

  @Override
  public Future<Void> close() {
    circuit.close();
    client.close();
    return Future.succeededFuture();
  }

  private Future<List<float[]>> attempt(List<String> texts, InputType inputType, Deadline deadline) {
    long left = deadline.remainingMillis();
    if (left <= 0) {
      return Future.failedFuture(deadline.timeout(displayName));
    }
    long timeout = Math.min(callTimeoutMillis, left);
    long started = System.nanoTime();
    HttpRequest<Buffer> request = client.postAbs(url)
        .timeout(timeout)
        .putHeader("Content-Type", "application/json")
        .putHeader("Accept", "application/json");
    apiKey.ifPresent(request::bearerTokenAuthentication);
    Future<List<float[]>> result = request.sendBuffer(requestBody(texts, inputType).toBuffer())
        .transform(sent -> {
          if (sent.failed()) {
            return Future.failedFuture(transportFailure(sent.cause(), timeout, left, deadline));
          }
          try {
            return Future.succeededFuture(answer(sent.result(), texts.size()));
          } catch (ServiceException e) {
            return Future.failedFuture(e);
          }
        });
    return result.onComplete(done -> RagMetrics.get().embedding(name,
        Duration.ofNanos(System.nanoTime() - started), texts.size(),
        done.succeeded() ? "success" : ServiceException.from(done.cause()).code().name().toLowerCase(Locale.ROOT)));
  }

  private List<float[]> answer(HttpResponse<Buffer> response, int expected) {
    int status = response.statusCode();
    if (status == 429) {
      Integer wait = RetryAfter.seconds(response.getHeader("Retry-After"), Instant.now());
      throw new ServiceException(ErrorCode.RATE_LIMIT, displayName + " is rate-limiting embedding requests",
          null, wait == null ? 1 : wait);
    }
    if (status == 401 || status == 403) {
      throw permanent(displayName + " rejected the API key");
    }
    if (status >= 500) {
      throw new ServiceException(ErrorCode.UPSTREAM_ERROR, displayName + " failed with HTTP " + status);
    }
    if (status < 200 || status >= 300) {
      String said = upstreamMessage(response);
      throw permanent(displayName + " refused the embedding request (HTTP " + status + ")"
          + (said == null ? "" : ": " + said));
    }
    List<float[]> vectors;
    try {
      JsonObject body = response.bodyAsJsonObject();
      if (body == null) {
        throw permanent(displayName + " answered with an empty body");
      }
      vectors = vectors(body);
    } catch (ServiceException e) {
      throw e;
    } catch (RuntimeException malformed) {
      throw permanent(displayName + " answered with malformed JSON");
    }
    if (vectors == null || vectors.size() != expected) {
      throw permanent(displayName + " returned " + (vectors == null ? 0 : vectors.size())
          + " embeddings for " + expected + " texts");
    }
    for (float[] vector : vectors) {
      if (vector == null || vector.length != dimension) {
        throw permanent(displayName + " returned vectors of size " + (vector == null ? 0 : vector.length) + ", expected " + dimension
            + " (check the configured model and dimension)");
      }
    }
    return vectors;
  }

  /** The upstream's error text, cut short and with the key removed should the upstream echo it. */
  private String upstreamMessage(HttpResponse<Buffer> response) {
    try {
      JsonObject body = response.bodyAsJsonObject();
      String message = body == null ? null : errorMessage(body);
      if (message == null || message.isBlank()) {
        return null;
      }
      if (apiKey.isPresent()) {
        message = message.replace(apiKey.get(), "***");
      }
      return message.length() > MAX_UPSTREAM_MESSAGE ? message.substring(0, MAX_UPSTREAM_MESSAGE) + "..." : message;
    } catch (RuntimeException notJson) {
      return null;
    }
  }

  private ServiceException transportFailure(Throwable cause, long timeout, long left, Deadline deadline) {
    if (cause instanceof TimeoutException) {
      return timeout >= left ? deadline.timeout(displayName)
          : new ServiceException(ErrorCode.TIMEOUT, displayName + " did not answer within " + timeout + " ms");
    }
    // refused, reset, DNS, TLS handshake, closed mid-answer: the request never completed
    LOG.debug("{} call failed: {}", name, cause.toString());
    return new ServiceException(ErrorCode.CONNECTION_ERROR, "cannot reach " + displayName);
  }

  private static ServiceException permanent(String message) {
    return ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, message);
  }

  /** Reads a JSON array of numbers into a float vector. */
  protected static float[] floats(JsonArray array) {
    float[] vector = new float[array.size()];
    for (int i = 0; i < vector.length; i++) {
      vector[i] = ((Number) array.getValue(i)).floatValue();
    }
    return vector;
  }
}
