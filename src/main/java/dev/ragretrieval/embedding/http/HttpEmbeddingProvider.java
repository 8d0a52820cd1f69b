package dev.ragretrieval.embedding.http;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.upstream.Retry;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.ragretrieval.tracing.Spans;
import dev.ragretrieval.upstream.EventLoopLocal;
import dev.ragretrieval.upstream.Upstream;
import io.vertx.circuitbreaker.CircuitBreakerState;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedding API reached over HTTP with a JSON body and a bearer key (Cohere, OpenAI-compatible).
 * Owns the HTTP mapping they share: status codes and transport failures to client-safe
 * {@link ServiceException}s, count and size checks of the answer. Circuit, retries of 429, 5xx and
 * connection failures, the per-call budget and metrics are the {@link Upstream} seam's.
 * Subclasses build the body and read the answer, and may name another format to fall back to
 * when the endpoint refuses theirs ({@link #otherFormat}).
 */
public abstract class HttpEmbeddingProvider implements EmbeddingProvider {

  private static final Logger LOG = LoggerFactory.getLogger(HttpEmbeddingProvider.class);
  private static final int MAX_UPSTREAM_MESSAGE = 300;
  /** Jackson's fast double parser is exact (correctly rounded) and several times quicker than the JDK's. */
  private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER).build();
  private static final CharSequence USER_AGENT = HttpHeaders.createOptimized("rag-retrieval");
  private static final CharSequence JSON_TYPE = HttpHeaders.createOptimized("application/json");
  /** Each event loop's connections to the endpoint: calls on one loop wait for one of these. */
  private static final int CONNECTIONS_PER_LOOP = 32;

  private final String name;
  private final String displayName;
  private final String host;
  private final boolean ssl;
  private final int port;
  /** Path and query of the endpoint. */
  private final String path;
  /** "Bearer key", or null: built once, sent with every call. */
  private final String authorization;
  private final Optional<String> apiKey;
  private final String model;
  private final int dimension;
  private final int maxTextsPerCall;
  /**
   * Vert.x's core client rather than WebClient: on the uncached path the embedding call was the
   * largest cost, and a fifth of it was WebClient's per-request interceptor pipeline. One per
   * event loop, so the answer is read on the loop that asked ({@link EventLoopLocal}).
   */
  private final EventLoopLocal<HttpClientAgent> clients;
  private final Upstream upstream;

  /**
   * @param name metrics/retry label ("cohere", "openai")
   * @param displayName how messages name the upstream ("Cohere")
   * @param url the full endpoint URL (http or https; https trusts the JVM's CAs, or embedding.ca_cert)
   */
  protected HttpEmbeddingProvider(Vertx vertx, AppConfig.Embedding config, String name, String displayName,
      String url, Optional<String> apiKey, String model, int dimension, int maxTextsPerCall, RagMetrics metrics) {
    this.name = name;
    this.displayName = displayName;
    URI endpoint = URI.create(url);
    this.host = endpoint.getHost();
    this.ssl = "https".equalsIgnoreCase(endpoint.getScheme());
    this.port = endpoint.getPort() > 0 ? endpoint.getPort() : ssl ? 443 : 80;
    this.path = (endpoint.getRawPath() == null || endpoint.getRawPath().isEmpty() ? "/" : endpoint.getRawPath())
        + (endpoint.getRawQuery() == null ? "" : "?" + endpoint.getRawQuery());
    this.apiKey = apiKey.filter(key -> !key.isBlank());
    this.authorization = this.apiKey.map(key -> "Bearer " + key).orElse(null);
    this.model = model;
    this.dimension = dimension;
    this.maxTextsPerCall = maxTextsPerCall;
    HttpClientOptions options = new HttpClientOptions().setKeepAlive(true).setVerifyHost(true);
    // a self-hosted endpoint behind a private CA; Cohere and OpenAI themselves need the JVM's store only
    config.caCert().ifPresent(cert -> options.setTrustOptions(new PemTrustOptions().addCertPath(cert.toString())));
    this.clients = new EventLoopLocal<>(vertx, () -> vertx.createHttpClient(new HttpClientOptions(options),
        new PoolOptions().setHttp1MaxSize(CONNECTIONS_PER_LOOP)));
    this.upstream = new Upstream(vertx, metrics, Upstream.Kind.EMBEDDING, name, displayName,
        new Retry.Policy(config.maxAttempts(), config.initialBackoff(), config.maxBackoff()), config.circuit(),
        config.timeout());
  }

  /** Joins a configured base URL (with or without a trailing slash) and a path. */
  protected static String join(String baseUrl, String path) {
    String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    return base + path;
  }

  /** The JSON body for one call. */
  protected abstract JsonObject requestBody(List<String> texts, InputType inputType);

  /**
   * The vectors of a 2xx body, in input order; any exception means a malformed answer. Read with
   * {@link #parser} (and {@link #end}), or straight from the bytes where the numbers are.
   */
  protected abstract List<float[]> vectors(byte[] body) throws IOException;

  /** The upstream's own error text in an error body, or null. */
  protected abstract String errorMessage(JsonObject body);

  /**
   * The same texts in another format when {@code refused} may have been refused for its format
   * (HTTP 400 or 422, or a 2xx answer without vectors: {@link NoVectorsInFormat}; {@code why} says
   * which), or null: no other format. The other body is sent at once, in the same attempt.
   */
  protected JsonObject otherFormat(JsonObject refused, String why) {
    return null;
  }

  /** The body from {@link #otherFormat} was answered with good vectors: the subclass may keep to its format. */
  protected void otherFormatServed(JsonObject body, String why) {}

  /**
   * Thrown by {@link #vectors} for a well-formed answer that holds no vectors in any format it
   * reads: the endpoint may not serve the format asked for ({@link #otherFormat}).
   */
  protected static final class NoVectorsInFormat extends IllegalStateException {
    public NoVectorsInFormat(String message) {
      super(message);
    }
  }

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
    return upstream.call("embed", texts.size(), deadline, budget -> attempt(texts, inputType, budget));
  }

  @Override
  public boolean circuitOpen() {
    return upstream.state() == CircuitBreakerState.OPEN;
  }

  @Override
  public Future<Void> close() {
    upstream.close();
    return Future.join(clients.all().stream().map(HttpClientAgent::close).toList()).mapEmpty();
  }

  /**
   * One attempt: the body, and should its format be what was refused ({@link #otherFormat}), at
   * once the same texts in the format the subclass falls back to, within the same budget.
   */
  private Future<List<float[]>> attempt(List<String> texts, InputType inputType, long budget) {
    JsonObject body = requestBody(texts, inputType);
    long started = System.nanoTime();
    io.opentelemetry.context.Context attemptSpan = Spans.parent();
    return exchange(body, texts.size(), budget, attemptSpan).recover(failure -> {
      if (!(failure instanceof FormatRefused refused)) {
        return Future.failedFuture(failure);
      }
      JsonObject other = otherFormat(body, refused.why);
      long left = budget - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      if (other == null || left <= 0) {
        return Future.failedFuture(refused.failure);
      }
      return exchange(other, texts.size(), left, attemptSpan)
          .onSuccess(vectors -> otherFormatServed(other, refused.why))
          .recover(again -> Future.failedFuture(again instanceof FormatRefused r ? r.failure : again));
    });
  }

  /** One request and its answer; fails with a ServiceException, a timeout, or a {@link FormatRefused}. */
  private Future<List<float[]>> exchange(JsonObject json, int expected, long budget,
      io.opentelemetry.context.Context attemptSpan) {
    Buffer body = json.toBuffer();
    // the budget bounds connecting, then each wait for the answer's next bytes
    RequestOptions options = new RequestOptions()
        .setMethod(HttpMethod.POST)
        .setHost(host)
        .setPort(port)
        .setSsl(ssl)
        .setURI(path)
        .setConnectTimeout(budget)
        .setIdleTimeout(budget);
    return clients.call(client -> client.request(options)
        .compose(request -> Spans.within(attemptSpan, () -> {
          request.putHeader(HttpHeaders.CONTENT_TYPE, JSON_TYPE)
              .putHeader(HttpHeaders.ACCEPT, JSON_TYPE)
              .putHeader(HttpHeaders.USER_AGENT, USER_AGENT);
          if (authorization != null) {
            request.putHeader(HttpHeaders.AUTHORIZATION, authorization);
          }
          // the body is asked for in the send's own callback, before any of it can arrive unheard
          return request.send(body).compose(response -> WholeBody.of(response).map(answer -> new Answer(response, answer)));
        })))
        .transform(sent -> {
          if (sent.failed()) {
            return Future.failedFuture(transportFailure(sent.cause()));
          }
          try {
            return Future.succeededFuture(answer(sent.result(), expected));
          } catch (ServiceException | FormatRefused e) {
            return Future.failedFuture(e);
          }
        });
  }

  /**
   * A refusal the request's format may explain: HTTP 400 or 422, or a 2xx answer without vectors
   * in a format the reader knows. Carries what the caller gets should no other format help.
   */
  private static final class FormatRefused extends RuntimeException {
    final ServiceException failure;
    final String why;

    FormatRefused(ServiceException failure, String why) {
      super(why, null, false, false);
      this.failure = failure;
      this.why = why;
    }
  }

  /** An answer's status, headers and whole body. */
  private record Answer(HttpClientResponse response, byte[] body) {
    int statusCode() {
      return response.statusCode();
    }

    String header(CharSequence name) {
      return response.getHeader(name);
    }
  }

  private List<float[]> answer(Answer response, int expected) {
    int status = response.statusCode();
    if (status == 429) {
      Integer wait = RetryAfter.seconds(response.header("Retry-After"), Instant.now());
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
      ServiceException refused = permanent(displayName + " refused the embedding request (HTTP " + status + ")"
          + (said == null ? "" : ": " + said));
      if (status == 400 || status == 422) {
        throw new FormatRefused(refused, "HTTP " + status + (said == null ? "" : ": " + said));
      }
      throw refused;
    }
    byte[] body = response.body();
    if (body.length == 0) {
      throw permanent(displayName + " answered with an empty body");
    }
    List<float[]> vectors;
    // streamed straight into float[]: no tree of boxed Doubles for a thousand numbers per text
    try {
      vectors = vectors(body);
    } catch (NoVectorsInFormat absent) {
      throw new FormatRefused(permanent(displayName + " answered without embeddings: " + absent.getMessage()),
          absent.getMessage());
    } catch (RuntimeException | IOException malformed) {
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
  private String upstreamMessage(Answer response) {
    try {
      JsonObject body = response.body().length == 0 ? null : new JsonObject(Buffer.buffer(response.body()));
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

  /** A timeout is left to the seam, which knows whether the deadline or the per-call budget ran out. */
  private Throwable transportFailure(Throwable cause) {
    if (cause instanceof TimeoutException) {
      return cause;
    }
    // refused, reset, DNS, TLS handshake, closed mid-answer: the request never completed
    LOG.debug("{} call failed: {}", name, cause.toString());
    return new ServiceException(ErrorCode.CONNECTION_ERROR, "cannot reach " + displayName);
  }

  private static ServiceException permanent(String message) {
    return ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, message);
  }

  /** A parser placed before the first token of {@code body}. */
  protected static JsonParser parser(byte[] body) throws IOException {
    return JSON.createParser(body);
  }

  /** Checks that nothing follows the JSON value the parser has read. */
  protected static void end(JsonParser parser) throws IOException {
    if (parser.nextToken() != null) {
      throw new IllegalStateException("trailing content after the JSON body");
    }
  }

  /**
   * Reads the array of vectors at the parser's next token ({@code [[n, ...], ...]}) from the bytes
   * of {@code body} ({@link FloatArrays}); the parser is left inside it, so the caller reads nothing
   * after it.
   */
  protected List<float[]> vectorListFromBytes(JsonParser parser, byte[] body) throws IOException {
    next(parser, JsonToken.START_ARRAY);
    long start = parser.currentTokenLocation().getByteOffset();
    if (start < 0 || start >= body.length || body[(int) start] != '[') {
      throw new IllegalStateException("the parser does not say where the vectors start");
    }
    return FloatArrays.read(body, (int) start, dimension);
  }

  /** Moves to the next token and checks it is {@code expected}. */
  protected static void next(JsonParser parser, JsonToken expected) throws IOException {
    if (parser.nextToken() != expected) {
      throw new IllegalStateException("expected " + expected + ", found " + parser.currentToken());
    }
  }

  /** Reads one array of numbers, the parser on its START_ARRAY, into a float vector. */
  protected float[] floats(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      throw new IllegalStateException("a vector must be an array of numbers");
    }
    float[] vector = new float[dimension];
    int size = 0;
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
      if (token != JsonToken.VALUE_NUMBER_FLOAT && token != JsonToken.VALUE_NUMBER_INT) {
        throw new IllegalStateException("a vector must hold numbers only");
      }
      if (size == vector.length) {
        vector = Arrays.copyOf(vector, Math.max(8, size * 2));
      }
      vector[size++] = JsonFloats.read(parser);
    }
    return size == vector.length ? vector : Arrays.copyOf(vector, size);
  }
}
