package dev.ragretrieval.openapi;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import dev.ragretrieval.observability.Observability;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running service, with the in-process Qdrant and Cohere test servers behind it ({@link TestStack}), answers every
 * documented operation with bodies that validate against openapi.yaml.
 */
class OpenApiLiveTest {

  private static final String CLIENT_KEY = "client-key-for-tests";

  @TempDir
  static Path dataDir;

  private static Observability observability;
  private static TestStack stack;
  private static OpenApiInteractionValidator validator;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  /** Operations ("METHOD /path") that a call in this class has validated. */
  private static final Set<String> VALIDATED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void start() throws Exception {
    observability = Observability.create();
    // the shipped configuration, on loopback with a short grace so the test ends quickly
    JsonObject shipped = new JsonObject(new com.fasterxml.jackson.databind.ObjectMapper(
        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readValue(Path.of("conf/config.yaml").toFile(), Map.class));
    shipped.getJsonObject("http").put("host", "127.0.0.1").put("shutdown_grace_ms", 1000);
    stack = await(TestStack.start(observability.vertx(), Map.of(
        "RAG_API_KEYS", CLIENT_KEY,
        "RAG_DATA_DIR", dataDir.toString(),
        "RAG_LOAD_SAMPLE_BOOK", "false"), shipped, observability.metricsHandler()));
    validator = OpenApiInteractionValidator.createForInlineApiSpecification(OpenApiSpec.text()).build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (stack != null) {
      await(stack.close());
    }
    await(observability.vertx().close());
  }

  // --- retrieval ---

  @Test
  @DisplayName("POST /v1/retrieve JSON answers with canonical names and with aliases validate")
  void retrieveJson() throws Exception {
    JsonObject canonical = json(call("POST", "/v1/retrieve", new JsonObject()
        .put("query", "What is a ROS 2 node?").put("top_k", 2).put("score_threshold", 0.0)
        .put("filter", new JsonObject().put("chapter", "module-1-ros2")), "application/json", 200));
    assertThat(canonical.getJsonArray("results")).isNotEmpty();

    JsonObject aliases = json(call("POST", "/v1/retrieve", new JsonObject()
        .put("text", "How does SLAM work?").put("k", 1).put("similarity_threshold", 0.0)
        .put("filters", new JsonObject().put("section", new JsonArray().add("SLAM"))), "application/json", 200));
    assertThat(aliases.getJsonObject("search_params").getInteger("top_k")).isEqualTo(1);

    json(call("POST", "/v1/retrieve", new JsonObject().put("query_text", "nothing like this at all").put("score_threshold", 1.0),
        "application/json", 200));
  }

  @Test
  @DisplayName("POST /v1/retrieve as server-sent events: meta, chunks, context, done, each validating")
  void retrieveSse() throws Exception {
    HttpResponse<String> response = call("POST", "/v1/retrieve", new JsonObject()
        .put("query", "ROS 2 nodes and topics").put("top_k", 2).put("score_threshold", 0.0).put("include_context", true),
        "text/event-stream", 200);
    assertThat(validateSse(response.body())).startsWith("meta").endsWith("context", "done").contains("chunk");
  }

  @Test
  @DisplayName("POST /v1/retrieve as NDJSON: every line validates against StreamLine and its event's data schema")
  void retrieveNdjson() throws Exception {
    HttpResponse<String> response = call("POST", "/v1/retrieve", new JsonObject()
        .put("query", "ROS 2 nodes").put("top_k", 2).put("score_threshold", 0.0), "application/x-ndjson", 200);
    List<String> events = new ArrayList<>();
    for (String line : response.body().split("\n")) {
      JsonObject event = new JsonObject(line);
      assertValid(OpenApiSpec.validate(event.getMap(), OpenApiSpec.component("StreamLine")), line);
      assertValid(OpenApiSpec.validate(event.getJsonObject("data").getMap(), dataSchema(event.getString("event"))), line);
      events.add(event.getString("event"));
    }
    assertThat(events).startsWith("meta").endsWith("done");
  }

  @Test
  @DisplayName("GET /v1/retrieve/stream serves the same SSE sequence to EventSource clients")
  void retrieveStreamGet() throws Exception {
    String query = "?query=" + URLEncoder.encode("What is a ROS 2 node?", StandardCharsets.UTF_8)
        + "&top_k=1&score_threshold=0&context=true&filter="
        + URLEncoder.encode("{\"chapter\":\"module-1-ros2\"}", StandardCharsets.UTF_8);
    HttpResponse<String> response = call("GET", "/v1/retrieve/stream" + query, null, "text/event-stream", 200);
    assertThat(validateSse(response.body())).containsExactly("meta", "chunk", "context", "done");
  }

  @Test
  @DisplayName("POST /v1/context answers an AssembledContext that validates")
  void context() throws Exception {
    JsonObject body = json(call("POST", "/v1/context", new JsonObject()
        .put("query", "What is a ROS 2 node?").put("top_k", 2).put("score_threshold", 0.0).put("max_context_chars", 4000),
        "application/json", 200));
    assertThat(body.getString("formatted_text")).startsWith("[Result 1] Score: ");
  }

  @Test
  @DisplayName("POST /v1/retrieve/batch JSON and NDJSON validate, with a failed slot among good ones")
  void batch() throws Exception {
    JsonObject request = new JsonObject().put("queries", new JsonArray()
        .add(new JsonObject().put("query", "ROS 2 node").put("score_threshold", 0.0))
        .add(new JsonObject().put("query", "   "))
        .add(new JsonObject().put("text", "SLAM map").put("k", 1).put("score_threshold", 0.0)));
    JsonObject body = json(call("POST", "/v1/retrieve/batch", request, "application/json", 200));
    assertThat(body.getJsonArray("results")).hasSize(3);
    assertThat(body.getJsonArray("results").getJsonObject(1).getJsonObject("error").getString("code")).isEqualTo("EMPTY_QUERY");

    HttpResponse<String> ndjson = call("POST", "/v1/retrieve/batch", request, "application/x-ndjson", 200);
    List<String> events = new ArrayList<>();
    for (String line : ndjson.body().split("\n")) {
      JsonObject event = new JsonObject(line);
      assertValid(OpenApiSpec.validate(event.getMap(), OpenApiSpec.component("BatchStreamLine")), line);
      String name = event.getString("event");
      String schema = name.equals("result") ? "RetrievalResult" : name.equals("error") ? "ErrorObject" : "BatchDone";
      assertValid(OpenApiSpec.validate(event.getJsonObject("data").getMap(), OpenApiSpec.component(schema)), line);
      events.add(name);
    }
    assertThat(events).hasSize(4).endsWith("done").contains("error");
  }

  @Test
  @DisplayName("GET /v1/facets validates, and an unfilterable key is a documented INVALID_REQUEST")
  void facets() throws Exception {
    JsonObject body = json(call("GET", "/v1/facets?key=chapter", null, "application/json", 200));
    assertThat(body.getJsonArray("values")).isNotEmpty();
    assertThat(errorCode(call("GET", "/v1/facets?key=author", null, "application/json", 400))).isEqualTo("INVALID_REQUEST");
  }

  // --- errors ---

  @Test
  @DisplayName("validation errors of section 7 are answered with documented statuses and Error bodies")
  void validationErrors() throws Exception {
    assertThat(errorCode(call("POST", "/v1/retrieve", new JsonObject().put("query", "  "), "application/json", 400)))
        .isEqualTo("EMPTY_QUERY");
    assertThat(errorCode(call("POST", "/v1/retrieve", new JsonObject().put("query", "x".repeat(1001)), "application/json", 400)))
        .isEqualTo("QUERY_TOO_LONG");
    assertThat(errorCode(call("POST", "/v1/retrieve", new JsonObject().put("query", "q").put("top_k", 0), "application/json", 400)))
        .isEqualTo("INVALID_TOP_K");
    assertThat(errorCode(call("POST", "/v1/retrieve", new JsonObject().put("query", "q").put("score_threshold", 2), "application/json", 400)))
        .isEqualTo("INVALID_THRESHOLD");
    assertThat(errorCode(call("POST", "/v1/retrieve", new JsonObject().put("query", "q").put("collection", "other"), "application/json", 400)))
        .isEqualTo("INVALID_REQUEST");
    assertThat(errorCode(call("POST", "/v1/context", new JsonObject().put("query", "q").put("filter", new JsonObject().put("author", "x")),
        "application/json", 400))).isEqualTo("INVALID_REQUEST");
  }

  @Test
  @DisplayName("401, 404, 405, 413 and 415 answers carry Error bodies that validate")
  void protocolErrors() throws Exception {
    HttpResponse<String> noKey = send(HttpRequest.newBuilder(uri("/v1/retrieve"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"query\":\"q\"}")).build());
    assertThat(noKey.statusCode()).isEqualTo(401);
    assertValid(validator.validateResponse("/v1/retrieve", Request.Method.POST, response(noKey)), noKey.body());
    VALIDATED.add("POST /v1/retrieve");

    HttpResponse<String> unknown = send(HttpRequest.newBuilder(uri("/v1/nothing-here")).header("X-API-Key", CLIENT_KEY).GET().build());
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertValid(OpenApiSpec.validate(new JsonObject(unknown.body()).getMap(), OpenApiSpec.component("Error")), unknown.body());
    assertThat(errorCode(unknown)).isEqualTo("NOT_FOUND");

    HttpResponse<String> wrongMethod = send(HttpRequest.newBuilder(uri("/v1/retrieve")).header("X-API-Key", CLIENT_KEY).GET().build());
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertValid(OpenApiSpec.validate(new JsonObject(wrongMethod.body()).getMap(), OpenApiSpec.component("Error")), wrongMethod.body());

    String big = new JsonObject().put("query", "q").put("pad", "x".repeat(70_000)).encode();
    HttpResponse<String> tooLarge = send(HttpRequest.newBuilder(uri("/v1/retrieve")).header("X-API-Key", CLIENT_KEY)
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(big)).build());
    assertThat(tooLarge.statusCode()).isEqualTo(413);
    assertValid(validator.validateResponse("/v1/retrieve", Request.Method.POST, response(tooLarge)), tooLarge.body());

    HttpResponse<String> notJson = send(HttpRequest.newBuilder(uri("/v1/retrieve")).header("X-API-Key", CLIENT_KEY)
        .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("query")).build());
    assertThat(notJson.statusCode()).isEqualTo(415);
    assertValid(validator.validateResponse("/v1/retrieve", Request.Method.POST, response(notJson)), notJson.body());
  }

  // --- operations ---

  @Test
  @DisplayName("health, metrics, the OpenAPI document and the web page answer as documented")
  void operations() throws Exception {
    json(call("GET", "/health/live", null, "application/json", 200));
    JsonObject ready = json(call("GET", "/health/ready", null, "application/json", 200));
    assertThat(ready.getString("status")).isEqualTo("UP");

    HttpResponse<String> metrics = call("GET", "/metrics", null, "text/plain", 200);
    assertThat(metrics.body()).contains("rag_requests_in_flight", "vertx_http_server_requests_total");

    HttpResponse<String> spec = call("GET", "/openapi.yaml", null, "application/yaml", 200);
    assertThat(spec.body()).isEqualTo(OpenApiSpec.text());

    HttpResponse<String> page = call("GET", "/", null, "text/html", 200);
    assertThat(page.body()).containsIgnoringCase("<html");
  }

  @Test
  @DisplayName("every operation in the document is served by the running router")
  void everyDocumentedOperationServed() throws Exception {
    for (String operation : OpenApiSpecTest.operations().keySet()) {
      String[] parts = operation.split(" ");
      HttpRequest.Builder request = HttpRequest.newBuilder(uri(parts[1])).header("X-API-Key", CLIENT_KEY);
      request = parts[0].equals("POST")
          ? request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}"))
          : request.GET();
      HttpResponse<String> response = send(request.build());
      assertThat(response.statusCode()).as(operation).isNotIn(404, 405);
    }
    assertThat(new TreeSet<>(OpenApiSpecTest.operations().keySet()))
        .containsExactlyInAnyOrderElementsOf(OpenApiSpec.CONTRACT_OPERATIONS);
  }

  // --- helpers ---

  /** Calls with a valid key, checks the status, and validates request and response against the spec. */
  private static HttpResponse<String> call(String method, String pathAndQuery, JsonObject body, String accept, int status)
      throws Exception {
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri(pathAndQuery)).header("Accept", accept)
        .header("X-API-Key", CLIENT_KEY).timeout(Duration.ofSeconds(20));
    if (body == null) {
      builder.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      builder.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.encode()));
    }
    HttpResponse<String> response = send(builder.build());
    assertThat(response.statusCode()).as("%s %s: %s", method, pathAndQuery, response.body()).isEqualTo(status);

    String path = pathAndQuery.contains("?") ? pathAndQuery.substring(0, pathAndQuery.indexOf('?')) : pathAndQuery;
    SimpleRequest.Builder request = new SimpleRequest.Builder(method, path)
        .withHeader("X-API-Key", CLIENT_KEY).withAccept(accept);
    if (pathAndQuery.contains("?")) {
      for (String pair : pathAndQuery.substring(pathAndQuery.indexOf('?') + 1).split("&")) {
        String[] kv = pair.split("=", 2);
        request.withQueryParam(kv[0], java.net.URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
      }
    }
    if (body != null) {
      request.withContentType("application/json").withBody(body.encode());
    }
    // NDJSON is one document per line: the validator gets the first line, the tests check every line
    String checkedBody = accept.equals("application/x-ndjson") ? response.body().split("\n")[0] : response.body();
    // requests built to be wrong are only checked for the documented answer
    ValidationReport report = status >= 400
        ? validator.validateResponse(path, Request.Method.valueOf(method), response(response, checkedBody))
        : validator.validate(request.build(), response(response, checkedBody));
    assertValid(report, method + " " + pathAndQuery + " -> " + response.body());
    VALIDATED.add(method + " " + path);
    return response;
  }

  /** Validates each SSE event's data against its event's schema; returns the event names in order. */
  private static List<String> validateSse(String body) {
    List<String> names = new ArrayList<>();
    for (String frame : body.split("\n\n")) {
      if (frame.isBlank()) {
        continue;
      }
      String name = null;
      StringBuilder data = new StringBuilder();
      for (String line : frame.split("\n")) {
        if (line.startsWith("event:")) {
          name = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          data.append(line.substring(5).trim());
        }
      }
      assertThat(name).as("event name in %s", frame).isNotNull();
      assertValid(OpenApiSpec.validate(new JsonObject(data.toString()).getMap(), dataSchema(name)), frame);
      names.add(name);
    }
    return names;
  }

  @SuppressWarnings("rawtypes")
  private static io.swagger.v3.oas.models.media.Schema dataSchema(String event) {
    return OpenApiSpec.component(switch (event) {
      case "meta" -> "StreamMeta";
      case "chunk" -> "RetrievedChunk";
      case "context" -> "AssembledContext";
      case "done" -> "StreamDone";
      case "error" -> "ErrorObject";
      default -> throw new AssertionError("undocumented event " + event);
    });
  }

  private static SimpleResponse response(HttpResponse<String> response) {
    return response(response, response.body());
  }

  private static SimpleResponse response(HttpResponse<String> response, String body) {
    SimpleResponse.Builder builder = new SimpleResponse.Builder(response.statusCode()).withBody(body);
    response.headers().map().forEach(builder::withHeader);
    return builder.build();
  }

  private static void assertValid(ValidationReport report, String what) {
    List<String> errors = report.getMessages().stream()
        .filter(m -> m.getLevel() == ValidationReport.Level.ERROR)
        .map(m -> m.getKey() + ": " + m.getMessage()).toList();
    assertThat(errors).as("validation of %s", what).isEmpty();
  }

  private static JsonObject json(HttpResponse<String> response) {
    return new JsonObject(response.body());
  }

  private static String errorCode(HttpResponse<String> response) {
    return new JsonObject(response.body()).getJsonObject("error").getString("code");
  }

  private static URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + stack.app.httpPort() + pathAndQuery);
  }

  private static HttpResponse<String> send(HttpRequest request) throws Exception {
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

}
