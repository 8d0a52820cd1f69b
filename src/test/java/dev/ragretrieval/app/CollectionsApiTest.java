package dev.ragretrieval.app;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.retrieval.RequestParser;
import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.testing.TestStack;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Collections as a newcomer meets them: whatever the store holds can be searched unless
 * QDRANT_COLLECTIONS restricts it, and GET /v1/collections says what there is.
 */
@ExtendWith(VertxExtension.class)
@DisplayName("Collections: any existing collection is searchable by default; QDRANT_COLLECTIONS restricts; GET /v1/collections")
class CollectionsApiTest {

  private static final String DOCU = "docu";
  private TestStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      await(stack.close());
    }
  }

  /** The stack with a second collection, "docu", holding one chunk; allowList null = QDRANT_COLLECTIONS unset. */
  private void start(Vertx vertx, String allowList, String apiKeys) {
    Map<String, String> settings = new java.util.HashMap<>(Map.of("RAG_SHUTDOWN_GRACE_MS", "2000",
        "QDRANT_COLLECTIONS", allowList == null ? "" : allowList));
    if (apiKeys != null) {
      settings.put("RAG_API_KEYS", apiKeys);
    }
    stack = await(TestStack.start(vertx, settings));
    stack.qdrant.createCollection(DOCU, TestStack.DIM);
    stack.qdrant.upsert(DOCU, "00000000-0000-0000-0000-000000000001",
        CohereTestServer.vectorFor("Docusaurus builds static documentation sites", TestStack.DIM),
        new JsonObject().put("text", "Docusaurus builds static documentation sites").put("chapter", "intro"));
  }

  private HttpResponse<Buffer> retrieve(JsonObject body) {
    return await(stack.client.post("/v1/retrieve").sendJsonObject(body));
  }

  @Test
  @DisplayName("with QDRANT_COLLECTIONS unset, a collection ingested after start-up is searched and faceted")
  void anyExistingCollection(Vertx vertx) {
    start(vertx, null, null);
    HttpResponse<Buffer> response = retrieve(new JsonObject()
        .put("query", "Docusaurus builds static documentation sites").put("collection", DOCU));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.bodyAsJsonObject().getString("collection")).isEqualTo(DOCU);
    assertThat(response.bodyAsJsonObject().getJsonArray("results").getJsonObject(0).getString("text"))
        .isEqualTo("Docusaurus builds static documentation sites");

    HttpResponse<Buffer> facets = await(stack.client.get("/v1/facets?key=chapter&collection=" + DOCU).send());
    assertThat(facets.statusCode()).isEqualTo(200);
    assertThat(facets.bodyAsJsonObject().getJsonArray("values"))
        .containsExactly(new JsonObject().put("value", "intro").put("count", 1));
  }

  @Test
  @DisplayName("a valid name the store does not have is 404 COLLECTION_NOT_FOUND")
  void missingCollection(Vertx vertx) {
    start(vertx, null, null);
    HttpResponse<Buffer> response = retrieve(new JsonObject().put("query", "q").put("collection", "no_such_books"));
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(Http.error(response).getString("code")).isEqualTo("COLLECTION_NOT_FOUND");
    assertThat(Http.error(response).getString("message")).contains("no_such_books");
  }

  @Test
  @DisplayName("an invalid name is 400 INVALID_REQUEST whose message states the naming rule")
  void invalidName(Vertx vertx) {
    start(vertx, null, null);
    HttpResponse<Buffer> response = retrieve(new JsonObject().put("query", "q").put("collection", "my books/2"));
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Http.error(response).getString("code")).isEqualTo("INVALID_REQUEST");
    assertThat(Http.error(response).getString("message")).contains(dev.ragretrieval.search.CollectionName.RULE);
  }

  @Test
  @DisplayName("with QDRANT_COLLECTIONS set, an existing collection outside it is refused with how to allow it")
  void allowListRefusal(Vertx vertx) {
    start(vertx, "other_book", null);
    HttpResponse<Buffer> response = retrieve(new JsonObject().put("query", "q").put("collection", DOCU));
    assertThat(response.statusCode()).isEqualTo(400);
    JsonObject error = Http.error(response);
    assertThat(error.getString("code")).isEqualTo("INVALID_REQUEST");
    assertThat(error.getString("message")).contains("QDRANT_COLLECTIONS").contains("'docu'");
    assertThat(error.getJsonObject("details").getJsonArray("allowed"))
        .containsExactly(TestStack.COLLECTION, "other_book");
  }

  @Test
  @DisplayName("GET /v1/collections lists every collection with points, vector_size and hybrid, sorted by name")
  void listsCollections(Vertx vertx) {
    start(vertx, null, null);
    HttpResponse<Buffer> response = await(stack.client.get("/v1/collections").send());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("application/json");
    assertThat(response.bodyAsJsonObject()).isEqualTo(new JsonObject().put("collections", new JsonArray()
        .add(new JsonObject().put("name", DOCU).put("points", 1).put("vector_size", TestStack.DIM).put("hybrid", false))
        .add(new JsonObject().put("name", TestStack.COLLECTION).put("points", TestStack.CHUNKS.length)
            .put("vector_size", TestStack.DIM).put("hybrid", false))));
  }

  @Test
  @DisplayName("with QDRANT_COLLECTIONS set, GET /v1/collections lists only the default and the allowed ones that exist")
  void listsOnlyAllowed(Vertx vertx) {
    start(vertx, "other_book", null);
    JsonArray listed = await(stack.client.get("/v1/collections").send()).bodyAsJsonObject().getJsonArray("collections");
    assertThat(listed.stream().map(c -> ((JsonObject) c).getString("name"))).containsExactly(TestStack.COLLECTION);
  }

  @Test
  @DisplayName("GET /v1/collections needs an API key when keys are configured, like every /v1 route")
  void listNeedsKey(Vertx vertx) {
    start(vertx, null, "k-123");
    assertThat(await(stack.client.get("/v1/collections").send()).statusCode()).isEqualTo(401);
    HttpResponse<Buffer> allowed = await(stack.client.get("/v1/collections").putHeader("X-API-Key", "k-123").send());
    assertThat(allowed.statusCode()).isEqualTo(200);
    assertThat(allowed.bodyAsJsonObject().getJsonArray("collections")).hasSize(2);
  }

  @Test
  @DisplayName("GET /docs is the API reference as one HTML page, naming every /v1 path")
  void apiDocsPage(Vertx vertx) {
    start(vertx, null, null);
    HttpResponse<Buffer> page = await(stack.client.get("/docs").send());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.getHeader("Content-Type")).startsWith("text/html");
    assertThat(page.bodyAsString())
        .contains("<table>", "/v1/retrieve", "/v1/context", "/v1/retrieve/batch", "/v1/facets", "/v1/collections")
        .contains("id=\"6b-get-v1collections\"", "href=\"#6b-get-v1collections\"")
        .doesNotContain("src=\"http", "href=\"http");
  }
}
