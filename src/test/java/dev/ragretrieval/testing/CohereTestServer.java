package dev.ragretrieval.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An in-process stand-in for the embedding APIs, on {@code 127.0.0.1} and an ephemeral port.
 *
 * <p>It serves two documented endpoints with the same deterministic vectors ({@link #vectorFor}):
 * <ul>
 *   <li>Cohere's {@code POST /v2/embed} (and {@code /v1/embed}, LangChain4j's, answering
 *       {@code "embeddings"} as a plain list of floats): {@code {"model", "texts", "input_type",
 *       "embedding_types", "truncate"}} answered by {@code {"id", "embeddings": {"float":
 *       [[...]], "base64": ["..."]}, "texts", "meta", "response_type": "embeddings_by_type"}},
 *       with the types asked for ({@code float} when none): {@code base64} is each vector's
 *       float32s, little-endian, base64-encoded, bit for bit the vector {@code float} prints.
 *       Validated like Cohere: a bearer key ({@code 401 {"message": ...}} otherwise), {@code
 *       model} and {@code texts} required, 1..96 texts, {@code input_type} required for v3 and
 *       later models and one of Cohere's values, {@code embedding_types} and {@code truncate} from
 *       Cohere's sets; every refusal is {@code 400 {"message": ...}}. Only {@code float} and
 *       {@code base64} are produced (v1: {@code float} only). Switches make it an endpoint without
 *       base64: {@link #refuseBase64} (400 for it), {@link #ignoreEmbeddingTypes} (float always);
 *       {@link #base64BigEndian} writes the bytes in Java's order instead.</li>
 *   <li>An OpenAI-compatible {@code POST /v1/embeddings}: {@code {"model", "input",
 *       "dimensions"?, "encoding_format"?}} answered by {@code {"object": "list", "data":
 *       [{"index", "embedding"}], "model", "usage"}}; errors are {@code {"error": {"message",
 *       "type"}}}. The {@code data} items come back in <em>reverse</em> order on purpose: clients
 *       must sort by {@code index}. A wrong key's 401 message repeats the key it received (stricter
 *       than OpenAI, which masks it) so tests prove a client never passes upstream text on.</li>
 *   <li>Cohere's {@code POST /v2/rerank}: {@code {"model", "query", "documents", "top_n"?}}
 *       answered by {@code {"id", "results": [{"index", "relevance_score"}], "meta"}}, most
 *       relevant first. The relevance is deterministic: the share of the query's words (stop words
 *       aside, a plural's "s" dropped) the document contains, ties in document order
 *       ({@link #relevance}). Same key and fault handling as {@code /v2/embed}; {@code model},
 *       {@code query} and 1..1000 string {@code documents} required, else 400.</li>
 * </ul>
 *
 * <p>Faults for tests: {@link #failNext}, {@link #badJsonNext} and {@link #wrongDimensionNext}
 * queue up in call order; each call to either endpoint takes the next one. {@link #delay} slows
 * every answer. {@link #callCount()}, {@link #requests()} and {@link #arrivalNanos()} record what
 * arrived (including calls that were then refused or faulted).
 *
 * <p>Thread-safe: tests may configure it from any thread while it serves.
 */
public final class CohereTestServer {

  /** Cohere's limit of texts per {@code /v2/embed} call. */
  public static final int MAX_TEXTS = 96;

  /** OpenAI's limit of inputs per {@code /v1/embeddings} call. */
  public static final int MAX_OPENAI_INPUTS = 2048;

  private static final Set<String> INPUT_TYPES =
      Set.of("search_document", "search_query", "classification", "clustering", "image");
  private static final Set<String> EMBEDDING_TYPES = Set.of("float", "int8", "uint8", "binary", "ubinary", "base64");
  private static final Set<String> TRUNCATE = Set.of("NONE", "START", "END");
  private static final Pattern MODEL_VERSION = Pattern.compile("v(\\d+)");
  private static final Set<String> STOP_WORDS = Set.of(
      "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "in", "is",
      "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where",
      "which", "who", "why", "with");

  private final Vertx vertx;
  private final String apiKey;
  private final int dimension;
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicLong inputs = new AtomicLong();
  private volatile boolean recording = true;
  private final List<JsonObject> requests = new CopyOnWriteArrayList<>();
  private final List<Long> arrivals = new CopyOnWriteArrayList<>();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private volatile Duration delay = Duration.ZERO;
  private volatile boolean cohereFloats;
  private volatile boolean refuseBase64;
  private volatile boolean ignoreEmbeddingTypes;
  private volatile boolean base64BigEndian;
  private volatile boolean chunked;
  /** The bench's pool of answers (see {@link #vectorPool}), or null. */
  private volatile Pool pool;
  private HttpServer server;
  private TestCertificate tls;

  private CohereTestServer(Vertx vertx, String apiKey, int dimension) {
    this.vertx = vertx;
    this.apiKey = apiKey;
    this.dimension = dimension;
  }

  /** Starts a server that accepts {@code Authorization: Bearer <apiKey>} and answers vectors of {@code dimension}. */
  public static Future<CohereTestServer> start(Vertx vertx, String apiKey, int dimension) {
    return start(vertx, apiKey, dimension, null);
  }

  /**
   * The same over https with a {@link TestCertificate} for {@code localhost}: use
   * {@link #baseUrl()} (https://localhost:port) and trust {@link #certificatePem()}.
   */
  public static Future<CohereTestServer> startTls(Vertx vertx, String apiKey, int dimension) {
    return TestCertificate.localhost(vertx).compose(cert -> start(vertx, apiKey, dimension, cert));
  }

  /** Plain http on a given port of 127.0.0.1 (0 = ephemeral): the bench's stand-in process. */
  public static Future<CohereTestServer> start(Vertx vertx, String apiKey, int dimension, int port) {
    return start(vertx, apiKey, dimension, null, port);
  }

  /**
   * The same, served by {@code instances} servers on one port (a fixed one), each on an event loop
   * of its own: Vert.x spreads the connections over them, so a client with a pool of connections
   * gets answers from every core (the bench's load would saturate one loop).
   */
  public static Future<CohereTestServer> start(Vertx vertx, String apiKey, int dimension, int port, int instances) {
    if (port <= 0) {
      throw new IllegalArgumentException("several instances need a fixed port");
    }
    CohereTestServer test = new CohereTestServer(vertx, apiKey, dimension);
    return vertx.deployVerticle(() -> new io.vertx.core.VerticleBase() {
          @Override
          public Future<?> start() {
            return vertx.createHttpServer().requestHandler(test::handle).listen(port, "127.0.0.1")
                .onSuccess(listening -> test.server = listening);
          }
        }, new io.vertx.core.DeploymentOptions().setInstances(instances))
        .map(deployment -> test);
  }

  private static Future<CohereTestServer> start(Vertx vertx, String apiKey, int dimension, TestCertificate tls) {
    return start(vertx, apiKey, dimension, tls, 0);
  }

  private static Future<CohereTestServer> start(Vertx vertx, String apiKey, int dimension, TestCertificate tls,
      int port) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension must be positive");
    }
    CohereTestServer test = new CohereTestServer(vertx, apiKey, dimension);
    test.tls = tls;
    HttpServerOptions options = new HttpServerOptions();
    if (tls != null) {
      options.setSsl(true).setKeyCertOptions(tls.keyCertOptions());
    }
    return vertx.createHttpServer(options)
        .requestHandler(test::handle)
        .listen(port, "127.0.0.1")
        .map(listening -> {
          test.server = listening;
          return test;
        });
  }

  /** The https server's certificate in PEM (it is its own CA); null for a plain http server. */
  public String certificatePem() {
    return tls == null ? null : tls.certificatePem();
  }

  public int port() {
    return server.actualPort();
  }

  /** {@code http://127.0.0.1:<port>} (https://localhost:<port> with TLS): use as COHERE_BASE_URL or OPENAI_BASE_URL. */
  public String baseUrl() {
    return tls == null ? "http://127.0.0.1:" + port() : "https://localhost:" + port();
  }

  public String apiKey() {
    return apiKey;
  }

  public int dimension() {
    return dimension;
  }

  /** Waits this long before every answer (including faults); {@link Duration#ZERO} turns it off. */
  public void delay(Duration perCall) {
    this.delay = perCall == null ? Duration.ZERO : perCall;
  }

  /**
   * The next {@code times} calls answer {@code httpStatus} with an error body, and with a
   * {@code Retry-After} header when {@code retryAfterHeader} is not null (seconds or an HTTP date).
   */
  public void failNext(int times, int httpStatus, String retryAfterHeader) {
    enqueue(new Fault(Kind.STATUS, times, httpStatus, retryAfterHeader));
  }

  /** The next {@code times} calls answer 200 with a body that is not valid JSON. */
  public void badJsonNext(int times) {
    enqueue(new Fault(Kind.BAD_JSON, times, 200, null));
  }

  /** The next {@code times} calls answer 200 with vectors one longer than they should be. */
  public void wrongDimensionNext(int times) {
    enqueue(new Fault(Kind.WRONG_DIMENSION, times, 200, null));
  }

  /** Calls received on either endpoint since start (or {@link #reset()}). */
  public int callCount() {
    return calls.get();
  }

  /** Texts (Cohere) or inputs (OpenAI) received over all calls. */
  public long inputCount() {
    return inputs.get();
  }

  /** false: keep counting calls and inputs but not the bodies and arrival times (a long bench run). */
  public void recordRequests(boolean record) {
    this.recording = record;
  }

  /** The JSON bodies received, in arrival order (an empty object for a body that was not JSON). */
  public List<JsonObject> requests() {
    return List.copyOf(requests);
  }

  /** {@link System#nanoTime()} at each call's arrival, in the order of {@link #requests()}. */
  public List<Long> arrivalNanos() {
    return List.copyOf(arrivals);
  }

  /** Forgets recorded calls, pending faults, the delay and the base64 switches. */
  public synchronized void reset() {
    faults.clear();
    delay = Duration.ZERO;
    refuseBase64 = false;
    ignoreEmbeddingTypes = false;
    base64BigEndian = false;
    calls.set(0);
    inputs.set(0);
    requests.clear();
    arrivals.clear();
  }

  public Future<Void> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  /** On: refuse {@code embedding_types} other than {@code ["float"]} with 400, as an endpoint without base64 would. */
  public void refuseBase64(boolean on) {
    refuseBase64 = on;
  }

  /** On: answer {@code embeddings.float} whatever {@code embedding_types} asks for, as an endpoint that ignores it would. */
  public void ignoreEmbeddingTypes(boolean on) {
    ignoreEmbeddingTypes = on;
  }

  /** On: {@code base64} embeddings are big-endian float32s (Java's default order), not little-endian (numpy's, Cohere's). */
  public void base64BigEndian(boolean on) {
    base64BigEndian = on;
  }

  /** On: every answer is sent chunked, without a Content-Length, as a proxy in between may send it. */
  public void chunked(boolean on) {
    chunked = on;
  }

  /** A vector's float32s in {@code order}, base64-encoded: a {@code base64} embedding. */
  public static String base64(float[] vector, java.nio.ByteOrder order) {
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(vector.length * Float.BYTES).order(order);
    bytes.asFloatBuffer().put(vector);
    return java.util.Base64.getEncoder().encodeToString(bytes.array());
  }

  private String base64(float[] vector) {
    return base64(vector, base64BigEndian ? java.nio.ByteOrder.BIG_ENDIAN : java.nio.ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * The bench's realism: every vector {@link #denseVectorFor dense} and printed as Cohere prints
   * float32s (up to 9 significant digits, small ones in exponent form such as {@code -1.2345678e-05}),
   * or their bytes in base64 when asked for that, where the default answers the tests' sparse
   * vectors through Jackson.
   */
  public void cohereFloats(boolean on) {
    cohereFloats = on;
  }

  /**
   * {@link #vectorFor} with a small deterministic noise on every dimension, normalised again: as
   * dense as a real model's vector (no zeros, about a tenth of the values under 1e-3), while texts
   * that share words still score high together.
   */
  public static float[] denseVectorFor(String text, int dimension) {
    float[] vector = vectorFor(text, dimension);
    java.util.SplittableRandom noise = new java.util.SplittableRandom(mix(fnv1a(text)));
    double norm = 0;
    for (int i = 0; i < dimension; i++) {
      vector[i] += (float) ((noise.nextDouble() * 2 - 1) * 0.01);
      norm += (double) vector[i] * vector[i];
    }
    float scale = (float) (1 / Math.sqrt(norm));
    for (int i = 0; i < dimension; i++) {
      vector[i] *= scale;
    }
    return vector;
  }

  /**
   * The bench's speed: from now on (with {@link #cohereFloats}) a text's vector is one of these
   * texts' {@link #denseVectorFor dense vectors}, picked by the text's hash, and its Cohere text
   * (printed floats, and the quoted base64 in the byte order set now) is made once here instead of
   * on every call (1,024 floats cost the stand-in more than the service's whole answer). The same
   * text always gets the same vector. Returns the vectors, in order, for the Qdrant stand-in to
   * rank ahead of time.
   */
  public List<float[]> vectorPool(List<String> texts) {
    List<float[]> vectors = texts.parallelStream().map(t -> denseVectorFor(t, dimension)).toList();
    String[] floats = vectors.parallelStream().map(v -> {
      StringBuilder out = new StringBuilder(v.length * 14);
      appendCohereFloats(out, v);
      return out.toString();
    }).toArray(String[]::new);
    String[] base64 = vectors.parallelStream().map(v -> '"' + base64(v) + '"').toArray(String[]::new);
    pool = new Pool(floats, base64);
    return vectors;
  }

  /** Each pooled vector's answer text: printed floats, and its base64 in quotes. */
  private record Pool(String[] floats, String[] base64) {
    int index(String text) {
      return Math.floorMod(text.hashCode(), floats.length);
    }
  }

  /** {@code [v, v, ...]} with each float as Cohere prints it: {@code -0.016679477}, {@code 3.4e-05}. */
  static void appendCohereFloats(StringBuilder out, float[] vector) {
    out.append('[');
    for (int i = 0; i < vector.length; i++) {
      if (i > 0) {
        out.append(',');
      }
      String shortest = Float.toString(vector[i]);
      int e = shortest.indexOf('E');
      if (e < 0) {
        out.append(shortest);
      } else {
        String mantissa = shortest.substring(0, e);
        int exponent = Integer.parseInt(shortest.substring(e + 1));
        out.append(mantissa.endsWith(".0") ? mantissa.substring(0, mantissa.length() - 2) : mantissa)
            .append(exponent < 0 ? "e-" : "e+");
        int magnitude = Math.abs(exponent);
        out.append(magnitude < 10 ? "0" : "").append(magnitude);
      }
    }
    out.append(']');
  }

  /**
   * A deterministic, L2-normalised vector: a signed hashed bag of the lower-cased words (stop words
   * dropped, a plural "s" trimmed) and of word bigrams. Texts sharing words get a high cosine, so
   * tests can seed a vector store with {@code vectorFor(chunkText)} and real queries rank sensibly.
   * A pure function: the same text and dimension always give the same vector.
   */
  public static float[] vectorFor(String text, int dimension) {
    float[] vector = new float[dimension];
    List<String> words = words(text);
    List<String> kept = new ArrayList<>();
    for (String word : words) {
      if (!STOP_WORDS.contains(word)) {
        kept.add(word);
      }
    }
    if (kept.isEmpty()) {
      kept = words;
    }
    if (kept.isEmpty()) {
      add(vector, "t:" + text, 1f);
    }
    for (int i = 0; i < kept.size(); i++) {
      add(vector, "w:" + kept.get(i), 1f);
      if (i + 1 < kept.size()) {
        add(vector, "b:" + kept.get(i) + " " + kept.get(i + 1), 0.5f);
      }
    }
    double norm = 0;
    for (float v : vector) {
      norm += (double) v * v;
    }
    float scale = (float) (1 / Math.sqrt(norm));
    for (int i = 0; i < dimension; i++) {
      vector[i] *= scale;
    }
    return vector;
  }

  private static List<String> words(String text) {
    List<String> words = new ArrayList<>();
    for (String raw : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (raw.isEmpty()) {
        continue;
      }
      String word = raw.length() > 3 && raw.endsWith("s") && !raw.endsWith("ss") ? raw.substring(0, raw.length() - 1) : raw;
      words.add(word);
    }
    return words;
  }

  private static void add(float[] vector, String feature, float weight) {
    long h = mix(fnv1a(feature));
    int index = (int) Math.floorMod(h, (long) vector.length);
    vector[index] += ((h >>> 40) & 1) == 0 ? weight : -weight;
  }

  private static long fnv1a(String s) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  /** SplitMix64's finaliser: spreads FNV's weak low bits over the whole word. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  // --- serving ---

  private enum Kind { STATUS, BAD_JSON, WRONG_DIMENSION }

  private static final class Fault {
    final Kind kind;
    final int status;
    final String retryAfter;
    int remaining;

    Fault(Kind kind, int times, int status, String retryAfter) {
      this.kind = kind;
      this.remaining = times;
      this.status = status;
      this.retryAfter = retryAfter;
    }
  }

  private synchronized void enqueue(Fault fault) {
    if (fault.remaining > 0) {
      faults.addLast(fault);
    }
  }

  private synchronized Fault takeFault() {
    Fault head = faults.peekFirst();
    if (head == null) {
      return null;
    }
    if (--head.remaining <= 0) {
      faults.removeFirst();
    }
    return head;
  }

  private void handle(HttpServerRequest request) {
    request.body().onSuccess(body -> {
      long arrived = System.nanoTime();
      boolean post = request.method() == HttpMethod.POST;
      // v1 is what LangChain4j's CohereEmbeddingModel calls (the bench's peer): the same texts, an
      // answer with "embeddings" as a plain list of float lists
      boolean cohereV1 = post && "/v1/embed".equals(request.path());
      boolean cohere = post && ("/v2/embed".equals(request.path()) || cohereV1);
      boolean openai = post && "/v1/embeddings".equals(request.path());
      boolean rerank = post && "/v2/rerank".equals(request.path());
      if (!cohere && !openai && !rerank) {
        send(request, 404, new JsonObject().put("message", "no route for " + request.method() + " " + request.path()), null);
        return;
      }
      JsonObject json = parse(body);
      calls.incrementAndGet();
      if (json != null && json.getValue(cohere ? "texts" : "input") instanceof JsonArray texts) {
        inputs.addAndGet(texts.size());
      }
      if (recording) {
        arrivals.add(arrived);
        requests.add(json == null ? new JsonObject() : json.copy());
      }
      Fault fault = takeFault();
      Runnable answer = () -> {
        if (cohere) {
          answerCohere(request, json, fault, cohereV1);
        } else if (rerank) {
          answerRerank(request, json, fault);
        } else {
          answerOpenAi(request, json, fault);
        }
      };
      if (delay.isZero() || delay.isNegative()) {
        answer.run();
      } else {
        vertx.setTimer(delay.toMillis(), id -> answer.run());
      }
    });
  }

  /**
   * What Cohere answers before doing the work, in its order: an injected status, a wrong key (401),
   * a refused body (400), or an injected cut-off JSON ({@code badJson}). True when it answered.
   */
  private boolean answeredBeforeWork(HttpServerRequest request, Fault fault, String refusal, String badJson) {
    if (fault != null && fault.kind == Kind.STATUS) {
      send(request, fault.status, new JsonObject().put("message", "injected failure (HTTP " + fault.status + ")"), fault.retryAfter);
      return true;
    }
    if (!("Bearer " + apiKey).equals(request.getHeader("Authorization"))) {
      send(request, 401, new JsonObject().put("message", "invalid api token"), null);
      return true;
    }
    if (refusal != null) {
      send(request, 400, new JsonObject().put("message", "invalid request: " + refusal), null);
      return true;
    }
    if (fault != null && fault.kind == Kind.BAD_JSON) {
      sendRaw(request, badJson);
      return true;
    }
    return false;
  }

  private void answerCohere(HttpServerRequest request, JsonObject body, Fault fault, boolean v1) {
    // v1 answers a plain list of floats; an endpoint that ignores embedding_types answers floats
    boolean base64 = !v1 && !ignoreEmbeddingTypes && asks(body, "base64");
    boolean floats = !base64 || asks(body, "float");
    String badJson = base64 ? "{\"id\": \"x\", \"embeddings\": {\"base64\": [\"AAAA"
        : "{\"id\": \"x\", \"embeddings\": {\"float\": [[0.1, 0.2,";
    if (answeredBeforeWork(request, fault, cohereRefusal(body, v1), badJson)) {
      return;
    }
    JsonArray texts = body.getJsonArray("texts");
    int size = fault != null && fault.kind == Kind.WRONG_DIMENSION ? dimension + 1 : dimension;
    int tokens = 0;
    for (int i = 0; i < texts.size(); i++) {
      tokens += words(texts.getString(i)).size();
    }
    JsonObject meta = new JsonObject()
        .put("api_version", new JsonObject().put("version", v1 ? "1" : "2"))
        .put("billed_units", new JsonObject().put("input_tokens", tokens));
    String id = UUID.randomUUID().toString();
    if (cohereFloats) {
      Pool pooled = size == dimension ? pool : null;
      float[][] vectors = new float[texts.size()][];
      if (pooled == null) {
        for (int i = 0; i < texts.size(); i++) {
          vectors[i] = denseVectorFor(texts.getString(i), size);
        }
      }
      StringBuilder out = new StringBuilder(texts.size() * size * (floats ? 13 : 0) + texts.size() * size * (base64 ? 6 : 0) + 256);
      out.append("{\"id\":\"").append(id).append(v1 ? "\",\"embeddings\":" : "\",\"embeddings\":{");
      if (floats) {
        out.append(v1 ? "[" : "\"float\":[");
        for (int i = 0; i < texts.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          if (pooled != null) {
            out.append(pooled.floats()[pooled.index(texts.getString(i))]);
          } else {
            appendCohereFloats(out, vectors[i]);
          }
        }
        out.append(']');
      }
      if (base64) {
        out.append(floats ? ",\"base64\":[" : "\"base64\":[");
        for (int i = 0; i < texts.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          if (pooled != null) {
            out.append(pooled.base64()[pooled.index(texts.getString(i))]);
          } else {
            out.append('"').append(base64(vectors[i])).append('"');
          }
        }
        out.append(']');
      }
      out.append(v1 ? "" : "}").append(",\"texts\":").append(texts.encode()).append(",\"meta\":").append(meta.encode())
          .append(",\"response_type\":\"").append(v1 ? "embeddings_floats" : "embeddings_by_type").append("\"}");
      sendRaw(request, out.toString());
      return;
    }
    JsonArray floatList = new JsonArray();
    JsonArray base64List = new JsonArray();
    for (int i = 0; i < texts.size(); i++) {
      float[] vector = vectorFor(texts.getString(i), size);
      if (floats) {
        floatList.add(toJson(vector));
      }
      if (base64) {
        base64List.add(base64(vector));
      }
    }
    JsonObject byType = new JsonObject();
    if (floats) {
      byType.put("float", floatList);
    }
    if (base64) {
      byType.put("base64", base64List);
    }
    send(request, 200, new JsonObject()
        .put("id", id)
        .put("embeddings", v1 ? floatList : byType)
        .put("texts", texts)
        .put("meta", meta)
        .put("response_type", v1 ? "embeddings_floats" : "embeddings_by_type"), null);
  }

  private static boolean asks(JsonObject body, String type) {
    return body != null && body.getValue("embedding_types") instanceof JsonArray types && types.contains(type);
  }

  private void answerRerank(HttpServerRequest request, JsonObject body, Fault fault) {
    if (answeredBeforeWork(request, fault, rerankRefusal(body), "{\"id\": \"x\", \"results\": [{\"index\": 0,")) {
      return;
    }
    JsonArray documents = body.getJsonArray("documents");
    String query = body.getString("query");
    List<JsonObject> scored = new ArrayList<>();
    for (int i = 0; i < documents.size(); i++) {
      scored.add(new JsonObject().put("index", i).put("relevance_score", relevance(query, documents.getString(i))));
    }
    scored.sort((a, b) -> Double.compare(b.getDouble("relevance_score"), a.getDouble("relevance_score")));
    int topN = body.getInteger("top_n", documents.size());
    send(request, 200, new JsonObject()
        .put("id", UUID.randomUUID().toString())
        .put("results", new JsonArray(new ArrayList<>(scored.subList(0, Math.min(topN, scored.size())))))
        .put("meta", new JsonObject()
            .put("api_version", new JsonObject().put("version", "2"))
            .put("billed_units", new JsonObject().put("search_units", 1))), null);
  }

  /** The stand-in's relevance: the share of the query's content words found in the document. */
  public static double relevance(String query, String document) {
    Set<String> wanted = new java.util.LinkedHashSet<>(words(query));
    wanted.removeAll(STOP_WORDS);
    if (wanted.isEmpty()) {
      return 0;
    }
    Set<String> present = new java.util.HashSet<>(words(document));
    long found = wanted.stream().filter(present::contains).count();
    return (double) found / wanted.size();
  }

  private static String rerankRefusal(JsonObject body) {
    if (body == null) {
      return "body must be a JSON object";
    }
    if (!(body.getValue("model") instanceof String model) || model.isBlank()) {
      return "model is required";
    }
    if (!(body.getValue("query") instanceof String)) {
      return "query is required";
    }
    if (!(body.getValue("documents") instanceof JsonArray documents) || documents.isEmpty() || documents.size() > 1000) {
      return "documents must hold 1 to 1000 items";
    }
    for (Object d : documents) {
      if (!(d instanceof String)) {
        return "documents must be strings";
      }
    }
    Object topN = body.getValue("top_n");
    if (topN != null && (!(topN instanceof Integer n) || n < 1)) {
      return "top_n must be a positive integer";
    }
    return null;
  }

  /** What Cohere would refuse in this body, or null; and base64 where this server does not do it. */
  private String cohereRefusal(JsonObject body, boolean v1) {
    if (body == null) {
      return "body must be a JSON object";
    }
    if (!(body.getValue("model") instanceof String model) || model.isBlank()) {
      return "model is required";
    }
    if (!(body.getValue("texts") instanceof JsonArray texts) || !texts.stream().allMatch(t -> t instanceof String)) {
      return "texts must be an array of strings";
    }
    if (texts.isEmpty()) {
      return "texts must contain at least one text";
    }
    if (texts.size() > MAX_TEXTS) {
      return "texts can contain at most " + MAX_TEXTS + " items, received " + texts.size();
    }
    Object inputType = body.getValue("input_type");
    if (inputType == null && majorVersion(model) >= 3) {
      return "input_type is required for embedding models v3 and higher";
    }
    if (inputType != null && !INPUT_TYPES.contains(inputType)) {
      return "input_type must be one of " + INPUT_TYPES;
    }
    Object types = body.getValue("embedding_types");
    if (types != null) {
      if (!(types instanceof JsonArray list) || list.isEmpty() || !list.stream().allMatch(EMBEDDING_TYPES::contains)) {
        return "embedding_types must be a non-empty subset of " + EMBEDDING_TYPES;
      }
      if ((v1 || refuseBase64) && (!list.contains("float") || list.size() != 1)) {
        return "this test server only produces float embeddings";
      }
      if (!list.stream().allMatch(type -> "float".equals(type) || "base64".equals(type))) {
        return "this test server only produces float and base64 embeddings";
      }
    }
    Object truncate = body.getValue("truncate");
    if (truncate != null && !TRUNCATE.contains(truncate)) {
      return "truncate must be one of " + TRUNCATE;
    }
    return null;
  }

  private static int majorVersion(String model) {
    Matcher version = MODEL_VERSION.matcher(model);
    return version.find() ? Integer.parseInt(version.group(1)) : 0;
  }

  private void answerOpenAi(HttpServerRequest request, JsonObject body, Fault fault) {
    if (fault != null && fault.kind == Kind.STATUS) {
      send(request, fault.status, openAiError("injected failure (HTTP " + fault.status + ")", "server_error"), fault.retryAfter);
      return;
    }
    String auth = request.getHeader("Authorization");
    if (apiKey != null && !("Bearer " + apiKey).equals(auth)) {
      String given = auth == null ? "<none>" : auth.replaceFirst("^Bearer ", "");
      send(request, 401, openAiError("Incorrect API key provided: " + given + ".", "invalid_request_error"), null);
      return;
    }
    String refusal = openAiRefusal(body);
    if (refusal != null) {
      send(request, 400, openAiError(refusal, "invalid_request_error"), null);
      return;
    }
    if (fault != null && fault.kind == Kind.BAD_JSON) {
      sendRaw(request, "{\"object\": \"list\", \"data\": [{\"index\": 0, \"embedding\": [0.1,");
      return;
    }
    Object input = body.getValue("input");
    JsonArray inputs = input instanceof String single ? new JsonArray().add(single) : (JsonArray) input;
    int size = body.getValue("dimensions") instanceof Integer wanted ? wanted : dimension;
    if (fault != null && fault.kind == Kind.WRONG_DIMENSION) {
      size++;
    }
    JsonArray data = new JsonArray();
    int tokens = 0;
    for (int i = inputs.size() - 1; i >= 0; i--) {
      data.add(new JsonObject().put("object", "embedding").put("index", i)
          .put("embedding", toJson(vectorFor(inputs.getString(i), size))));
      tokens += words(inputs.getString(i)).size();
    }
    send(request, 200, new JsonObject()
        .put("object", "list")
        .put("data", data)
        .put("model", body.getString("model"))
        .put("usage", new JsonObject().put("prompt_tokens", tokens).put("total_tokens", tokens)), null);
  }

  private static String openAiRefusal(JsonObject body) {
    if (body == null) {
      return "We could not parse the JSON body of your request.";
    }
    if (!(body.getValue("model") instanceof String model) || model.isBlank()) {
      return "you must provide a model parameter";
    }
    Object input = body.getValue("input");
    if (input instanceof JsonArray list) {
      if (list.isEmpty() || list.size() > MAX_OPENAI_INPUTS || !list.stream().allMatch(t -> t instanceof String)) {
        return "'input' must be a string or an array of 1.." + MAX_OPENAI_INPUTS + " strings";
      }
    } else if (!(input instanceof String)) {
      return "'input' must be a string or an array of strings";
    }
    Object format = body.getValue("encoding_format");
    if (format != null && !"float".equals(format)) {
      return "this test server only produces float embeddings";
    }
    Object dims = body.getValue("dimensions");
    if (dims != null && (!(dims instanceof Integer d) || d < 1)) {
      return "'dimensions' must be a positive integer";
    }
    return null;
  }

  private static JsonObject openAiError(String message, String type) {
    return new JsonObject().put("error", new JsonObject().put("message", message).put("type", type));
  }

  private static JsonObject parse(Buffer body) {
    try {
      Object value = body.length() == 0 ? null : io.vertx.core.json.Json.decodeValue(body);
      return value instanceof JsonObject object ? object : null;
    } catch (DecodeException notJson) {
      return null;
    }
  }

  private static JsonArray toJson(float[] vector) {
    JsonArray array = new JsonArray(new ArrayList<>(vector.length));
    for (float v : vector) {
      array.add(v);
    }
    return array;
  }

  private void send(HttpServerRequest request, int status, JsonObject body, String retryAfter) {
    if (request.response().closed()) {
      return; // the client gave up during a delay
    }
    if (retryAfter != null) {
      request.response().putHeader("Retry-After", retryAfter);
    }
    write(request.response().setStatusCode(status), body.toBuffer());
  }

  private void sendRaw(HttpServerRequest request, String body) {
    if (request.response().closed()) {
      return;
    }
    write(request.response().setStatusCode(200), Buffer.buffer(body));
  }

  private void write(HttpServerResponse response, Buffer body) {
    response.putHeader("Content-Type", "application/json");
    if (!chunked) {
      response.end(body);
      return;
    }
    // three chunks of Transfer-Encoding: chunked, and no Content-Length
    response.setChunked(true);
    int third = body.length() / 3;
    response.write(body.slice(0, third));
    response.write(body.slice(third, 2 * third));
    response.end(body.slice(2 * third, body.length()));
  }
}
