package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.app.RawHttp.Response;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(VertxExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Errors at the edge (414, 431, malformed requests, malformed UTF-8) have the contract's JSON body")
class EdgeErrorsTest {

  /** Malformed UTF-8 of every kind, as hex. */
  private static final String[] MALFORMED = {
      "C328",          // a lead byte followed by a non-continuation byte
      "C0AF",          // overlong '/'
      "E080AF",        // overlong '/' in three bytes
      "EDA080",        // an encoded surrogate (U+D800)
      "E282",          // a truncated three-byte sequence
      "F8888080AF",    // a five-byte form
      "FC8480808080",  // a six-byte form
      "F4908080",      // above U+10FFFF
      "80",            // a lone continuation byte
      "FF",            // never valid
  };

  private Vertx vertx;
  private TestStack stack;
  private int port;

  @BeforeAll
  void start() {
    vertx = Vertx.vertx();
    stack = await(TestStack.start(vertx, Map.of("RAG_SHUTDOWN_GRACE_MS", "1000")));
    port = stack.app.httpPort();
  }

  @AfterAll
  void stop() {
    await(stack.close());
    await(vertx.close());
  }

  /** The contract's error shape with this status and code, and nothing a client should not see. */
  private static JsonObject assertError(Response response, int status, String code) {
    assertThat(response.status()).isEqualTo(status);
    assertThat(response.header("Content-Type")).startsWith("application/json");
    JsonObject body = new JsonObject(response.body());
    assertThat(body.fieldNames()).containsExactly("error");
    JsonObject error = body.getJsonObject("error");
    assertThat(error.fieldNames()).containsExactlyInAnyOrder("code", "message", "details", "query_id");
    assertThat(error.getString("code")).isEqualTo(code);
    assertThat(error.getString("message")).isNotBlank().doesNotContain("Exception", "io.netty", "io.vertx");
    return error;
  }

  private static String percent(String hex) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < hex.length(); i += 2) {
      out.append('%').append(hex, i, i + 2);
    }
    return out.toString();
  }

  private static byte[] bodyWith(byte[] inside) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes("{\"query\": \"robot ".getBytes(StandardCharsets.US_ASCII));
    body.writeBytes(inside);
    body.writeBytes(" nodes\"}".getBytes(StandardCharsets.US_ASCII));
    return body.toByteArray();
  }

  @Test
  @DisplayName("a request line over the URI limit is 414 INVALID_REQUEST with the limit in details")
  void uriTooLong() throws IOException {
    Response response = RawHttp.send(port, RawHttp.get("/v1/retrieve/stream?query=" + "a".repeat(40_000)));
    JsonObject error = assertError(response, 414, "INVALID_REQUEST");
    assertThat(error.getJsonObject("details").getInteger("limit_bytes")).isEqualTo(32768);
  }

  @Test
  @DisplayName("a 70 KB request line is 414 with the contract's body, and the connection is closed")
  void hugeRequestLine() throws IOException {
    try (Socket socket = RawHttp.connect(port)) {
      Response response = RawHttp.send(socket, RawHttp.get("/" + "x".repeat(70_000)));
      assertError(response, 414, "INVALID_REQUEST");
      assertThat(RawHttp.closedByServer(socket)).isTrue();
    }
  }

  @Test
  @DisplayName("headers over the header limit are 431 INVALID_REQUEST with the limit in details")
  void headersTooLarge() throws IOException {
    Response response = RawHttp.send(port, RawHttp.get("/health/live",
        "X-Big-1: " + "b".repeat(20_000), "X-Big-2: " + "c".repeat(20_000)));
    JsonObject error = assertError(response, 431, "INVALID_REQUEST");
    assertThat(error.getJsonObject("details").getInteger("limit_bytes")).isEqualTo(32768);
  }

  @ParameterizedTest(name = "request line \"{0}\"")
  @ValueSource(strings = {"GARBAGE", "GET  HTTP/1.1", "G\u0001T / HTTP/1.1", "GET / HTTP/1.1 extra"})
  @DisplayName("a malformed request line is 400 INVALID_REQUEST with the contract's body")
  void malformedRequestLine(String line) throws IOException {
    Response response = RawHttp.send(port, (line + "\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    assertError(response, 400, "INVALID_REQUEST");
  }

  @Test
  @DisplayName("the longest query the contract allows (1000 four-byte characters, 12 KB percent-encoded) fits the GET stream")
  void longestQueryFitsGetStream() throws IOException {
    String query = "\uD83E\uDD16".repeat(999) + "n";
    String target = "/v1/retrieve/stream?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8)
        + "&top_k=100&score_threshold=0&filter=" + URLEncoder.encode(
            "{\"chapter\": [\"module-1-ros2\", \"module-2-simulation\"]}", StandardCharsets.UTF_8) + "&context=true";
    assertThat(target.length()).isGreaterThan(12_000);
    // with the page's URL, carrying the same query, as the Referer an EventSource request sends
    Response response = RawHttp.send(port, RawHttp.get(target, "Accept: text/event-stream",
        "Referer: http://localhost/?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8), "Connection: close"));
    assertThat(response.status()).isEqualTo(200);
    List<Http.Event> events = Http.sse(response.body());
    assertThat(events.get(0).name()).isEqualTo("meta");
    assertThat(events.get(0).data().getString("query")).isEqualTo(query);
    assertThat(events.get(events.size() - 1).name()).isEqualTo("done");
  }

  @ParameterizedTest(name = "%{0} in the query string")
  @ValueSource(strings = {"C328", "C0AF", "E080AF", "EDA080", "E282", "F8888080AF", "FC8480808080", "F4908080", "80", "FF"})
  @DisplayName("malformed UTF-8 percent-encoded in a query string is 400 INVALID_REQUEST, never a replacement character")
  void malformedUtf8InQueryString(String hex) throws IOException {
    Response response = RawHttp.send(port, RawHttp.get("/v1/retrieve/stream?query=robot" + percent(hex) + "nodes"));
    JsonObject error = assertError(response, 400, "INVALID_REQUEST");
    assertThat(error.getString("message")).contains("UTF-8");
  }

  @ParameterizedTest(name = "%{0} in the path")
  @ValueSource(strings = {"C0AF", "EDA080", "E282"})
  @DisplayName("malformed UTF-8 percent-encoded in the path is 400, so an overlong '/' never reaches a route")
  void malformedUtf8InPath(String hex) throws IOException {
    Response response = RawHttp.send(port, RawHttp.get("/v1" + percent(hex) + "facets?key=chapter"));
    assertError(response, 400, "INVALID_REQUEST");
  }

  @Test
  @DisplayName("raw non-ASCII bytes on the request line are 400: they must be percent-encoded")
  void rawBytesInUri() throws IOException {
    byte[] request = RawHttp.get("/v1/retrieve/stream?query=caf\u00C3\u00A9");
    Response response = RawHttp.send(port, request);
    assertError(response, 400, "INVALID_REQUEST");
  }

  @Test
  @DisplayName("an incomplete percent-escape in a query string is 400 INVALID_REQUEST")
  void incompleteEscape() throws IOException {
    assertError(RawHttp.send(port, RawHttp.get("/v1/retrieve/stream?query=100%")), 400, "INVALID_REQUEST");
    assertError(RawHttp.send(port, RawHttp.get("/v1/retrieve/stream?query=a%2")), 400, "INVALID_REQUEST");
    assertError(RawHttp.send(port, RawHttp.get("/v1/retrieve/stream?query=a%zzb")), 400, "INVALID_REQUEST");
  }

  @ParameterizedTest(name = "{0} in a JSON body")
  @ValueSource(strings = {"C328", "C0AF", "E080AF", "EDA080", "E282", "F8888080AF", "FC8480808080", "F4908080", "80", "FF"})
  @DisplayName("malformed UTF-8 in a JSON body is 400 INVALID_REQUEST, never a replacement character")
  void malformedUtf8InBody(String hex) throws IOException {
    for (String path : List.of("/v1/retrieve", "/v1/context")) {
      Response response = RawHttp.send(port, RawHttp.postJson(path, bodyWith(HexFormat.of().parseHex(hex))));
      JsonObject error = assertError(response, 400, "INVALID_REQUEST");
      assertThat(error.getString("message")).contains("UTF-8");
    }
  }

  @ParameterizedTest(name = "JSON escape {0}")
  @ValueSource(strings = {"\\ud800", "\\udfff", "a\\ud83e", "\\udd16\\ud83e"})
  @DisplayName("a JSON escape of a lone surrogate in a body is 400 INVALID_REQUEST: no UTF-8 can carry it")
  void loneSurrogateEscape(String escape) throws IOException {
    byte[] body = ("{\"query\": \"robot " + escape + " nodes\"}").getBytes(StandardCharsets.US_ASCII);
    JsonObject error = assertError(RawHttp.send(port, RawHttp.postJson("/v1/retrieve", body)), 400, "INVALID_REQUEST");
    assertThat(error.getString("message")).contains("UTF-8");
  }

  @ParameterizedTest(name = "body {0}")
  @ValueSource(strings = {"{\"query\": \"robot\"} x", "{\"query\": \"robot\"} {}", "{\"query\": \"robot\",}",
      "{'query': 'robot'}", "{\"query\": \"robot\"", "[{\"query\": \"robot\"}]", "\"robot\"", "42", "null"})
  @DisplayName("a body that is not one JSON object (trailing content, a stray comma, single quotes, cut short, "
      + "another JSON value) is 400 INVALID_REQUEST on body")
  void notOneJsonObject(String text) throws IOException {
    byte[] body = text.getBytes(StandardCharsets.US_ASCII);
    JsonObject error = assertError(RawHttp.send(port, RawHttp.postJson("/v1/retrieve", body)), 400, "INVALID_REQUEST");
    assertThat(error.getString("message")).contains("JSON");
    assertThat(error.getJsonObject("details").getString("field")).isEqualTo("body");
  }

  @Test
  @DisplayName("a JSON escape of a surrogate pair is one character, accepted")
  void surrogatePairEscape() throws IOException {
    byte[] body = "{\"query\": \"robot \\ud83e\\udd16 nodes\"}".getBytes(StandardCharsets.US_ASCII);
    Response response = RawHttp.send(port, RawHttp.postJson("/v1/retrieve", body));
    assertThat(response.status()).isEqualTo(200);
    assertThat(new JsonObject(response.body()).getString("query")).isEqualTo("robot \uD83E\uDD16 nodes");
  }

  @Test
  @DisplayName("malformed UTF-8 inside one query of a batch fails the whole body with 400 INVALID_REQUEST")
  void malformedUtf8InBatchBody() throws IOException {
    byte[] body = ("{\"queries\": [{\"query\": \"nodes\"}, {\"query\": \"a" + "\u00ED\u00A0\u0080" + "b\"}]}")
        .getBytes(StandardCharsets.ISO_8859_1);
    assertError(RawHttp.send(port, RawHttp.postJson("/v1/retrieve/batch", body)), 400, "INVALID_REQUEST");
  }

  @Test
  @DisplayName("well-formed four-byte UTF-8 in a body and a query string is accepted as sent")
  void wellFormedUtf8Accepted() throws IOException {
    String query = "robot \uD83E\uDD16 nodes \u00E9";
    Response body = RawHttp.send(port, RawHttp.postJson("/v1/retrieve",
        new JsonObject().put("query", query).encode().getBytes(StandardCharsets.UTF_8)));
    assertThat(body.status()).isEqualTo(200);
    assertThat(new JsonObject(body.body()).getString("query")).isEqualTo(query);
    Response get = RawHttp.send(port, RawHttp.get("/v1/retrieve/stream?query="
        + URLEncoder.encode(query, StandardCharsets.UTF_8), "Connection: close"));
    assertThat(get.status()).isEqualTo(200);
    assertThat(Http.sse(get.body()).get(0).data().getString("query")).isEqualTo(query);
  }
}
