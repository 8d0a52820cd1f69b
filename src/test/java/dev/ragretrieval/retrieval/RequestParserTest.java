package dev.ragretrieval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RequestParser: aliases, defaults and every validation code of docs/API.md section 4")
class RequestParserTest {

  private static AppConfig config(boolean clamp) {
    JsonObject yaml = new JsonObject()
        .put("qdrant", new JsonObject().put("collection", "textbook_chunks").put("collections", new JsonArray().add("other_book")))
        .put("retrieval", new JsonObject()
            .put("max_query_chars", 50)
            .put("default_top_k", 5)
            .put("max_top_k", 20)
            .put("clamp_top_k", clamp)
            .put("default_score_threshold", 0.1)
            .put("max_context_chars", 12000)
            .put("max_batch_queries", 3)
            .put("filter_keys", new JsonArray().add("chapter").add("section").add("module")));
    return ConfigLoader.fromJson(yaml, Map.of());
  }

  private final RequestParser parser = parser(false);

  private static RequestParser parser(boolean clamp) {
    AppConfig config = config(clamp);
    return new RequestParser(config.retrieval(), config.qdrant());
  }

  private static JsonObject body(String json) {
    return new JsonObject(json);
  }

  private static void assertCode(ThrowingCallable call, ErrorCode code, String field) {
    assertThatThrownBy(call)
        .isInstanceOf(ServiceException.class)
        .satisfies(e -> {
          ServiceException error = (ServiceException) e;
          assertThat(error.code()).isEqualTo(code);
          assertThat(((JsonObject) error.details()).getString("field")).isEqualTo(field);
        });
  }

  @Test
  @DisplayName("a bare query gets the configured defaults")
  void defaults() {
    RetrievalRequest request = parser.parse(body("{\"query\": \"  What is a node?  \"}"));
    assertThat(request.query()).isEqualTo("What is a node?");
    assertThat(request.topK()).isEqualTo(5);
    assertThat(request.scoreThreshold()).isEqualTo(0.1);
    assertThat(request.filter()).isEmpty();
    assertThat(request.filterEcho()).isEqualTo(new JsonObject());
    assertThat(request.collection()).isEqualTo("textbook_chunks");
    assertThat(request.includeContext()).isFalse();
    assertThat(request.maxContextChars()).isEqualTo(12000);
  }

  @Test
  @DisplayName("text, query_text, k, similarity_threshold and filters are aliases")
  void aliases() {
    RetrievalRequest a = parser.parse(body(
        "{\"text\": \"nodes\", \"k\": 3, \"similarity_threshold\": 0.4, \"filters\": {\"chapter\": \"c1\"}}"));
    assertThat(a.query()).isEqualTo("nodes");
    assertThat(a.topK()).isEqualTo(3);
    assertThat(a.scoreThreshold()).isEqualTo(0.4);
    assertThat(a.filter()).isEqualTo(Map.of("chapter", List.of("c1")));
    assertThat(a.filterEcho()).isEqualTo(new JsonObject().put("chapter", "c1"));

    RetrievalRequest b = parser.parse(body("{\"query_text\": \"topics\"}"));
    assertThat(b.query()).isEqualTo("topics");
  }

  @Test
  @DisplayName("all fields of the contract's example are read")
  void fullRequest() {
    RetrievalRequest request = parser.parse(body("{\"query\": \"What is a ROS 2 node?\", \"top_k\": 7,"
        + " \"score_threshold\": 0.25, \"filter\": {\"chapter\": \"module-1-ros2\", \"section\": [\"Nodes\", \"Topics\"]},"
        + " \"collection\": \"other_book\", \"include_context\": true, \"max_context_chars\": 500}"));
    assertThat(request.topK()).isEqualTo(7);
    assertThat(request.scoreThreshold()).isEqualTo(0.25);
    assertThat(request.filter()).containsEntry("chapter", List.of("module-1-ros2"))
        .containsEntry("section", List.of("Nodes", "Topics"));
    assertThat(request.collection()).isEqualTo("other_book");
    assertThat(request.includeContext()).isTrue();
    assertThat(request.maxContextChars()).isEqualTo(500);
  }

  @Test
  @DisplayName("a missing or blank query is EMPTY_QUERY")
  void emptyQuery() {
    assertCode(() -> parser.parse(body("{}")), ErrorCode.EMPTY_QUERY, "query");
    assertCode(() -> parser.parse(body("{\"query\": \"   \\n\"}")), ErrorCode.EMPTY_QUERY, "query");
    assertCode(() -> parser.parse(body("{\"text\": \"\"}")), ErrorCode.EMPTY_QUERY, "text");
  }

  @Test
  @DisplayName("a query of only invisible characters (no-break spaces, zero-width spaces and joiners, BOM) is EMPTY_QUERY; inside a question they stay")
  void invisibleOnly() {
    assertCode(() -> parser.parse(new JsonObject().put("query", "\u200b\u200b")), ErrorCode.EMPTY_QUERY, "query");
    assertCode(() -> parser.parse(new JsonObject().put("query", " \u00a0\u3000\ufeff\u200d\u2060 ")),
        ErrorCode.EMPTY_QUERY, "query");
    assertThat(parser.parse(new JsonObject().put("query", "\u200bnodes")).query()).isEqualTo("\u200bnodes");
    assertThat(parser.parse(new JsonObject().put("query", "\ud83d\udc69\u200d\ud83d\udcbb")).query())
        .isEqualTo("\ud83d\udc69\u200d\ud83d\udcbb"); // an emoji joined by U+200D is a question
  }

  @Test
  @DisplayName("a query of only control characters is EMPTY_QUERY")
  void controlCharactersOnly() {
    assertCode(() -> parser.parse(body("{\"query\": \"\\u0000\\u0007 \\u001b\"}")), ErrorCode.EMPTY_QUERY, "query");
    assertThat(parser.parse(body("{\"query\": \"no\\u0000des\"}")).query()).isEqualTo("nodes");
  }

  @Test
  @DisplayName("every control character but tab, line feed and carriage return is removed from inside a query, and nothing else")
  void controlCharactersRemovedOneByOne() {
    for (char c = 0; c < 0x200; c++) {
      String query = parser.parse(new JsonObject().put("query", "a" + c + "b")).query();
      boolean removed = Character.getType(c) == Character.CONTROL && c != '\t' && c != '\n' && c != '\r';
      assertThat(query).as("U+%04X", (int) c).isEqualTo(removed ? "ab" : "a" + c + "b");
    }
  }

  @Test
  @DisplayName("a misspelt field such as topk is INVALID_REQUEST naming the field it likely meant")
  void nearMissFieldGetsHint() {
    assertThatThrownBy(() -> parser.parse(body("{\"query\": \"q\", \"topk\": 3}")))
        .isInstanceOfSatisfying(ServiceException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
          assertThat(e.getMessage()).isEqualTo("unknown field 'topk'; did you mean 'top_k'?");
          assertThat(((JsonObject) e.details()).getString("suggestion")).isEqualTo("top_k");
        });
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"scor_treshold\": 0.3}")), ErrorCode.INVALID_REQUEST,
        "scor_treshold");
  }

  @Test
  @DisplayName("an unknown field that is no near miss (a client's own) is ignored")
  void otherUnknownFieldsIgnored() {
    assertThat(parser.parse(body("{\"query\": \"q\", \"query_id\": \"abc\", \"user\": \"u1\"}")).query())
        .isEqualTo("q");
  }

  @Test
  @DisplayName("a query over the limit is QUERY_TOO_LONG; exactly the limit passes")
  void queryTooLong() {
    assertThat(parser.parse(new JsonObject().put("query", "a".repeat(50))).query()).hasSize(50);
    assertCode(() -> parser.parse(new JsonObject().put("query", "a".repeat(51))), ErrorCode.QUERY_TOO_LONG, "query");
  }

  @Test
  @DisplayName("a query that is not a string is INVALID_REQUEST")
  void queryWrongType() {
    assertCode(() -> parser.parse(body("{\"query\": 42}")), ErrorCode.INVALID_REQUEST, "query");
    assertCode(() -> parser.parse(body("{\"query\": [\"a\"]}")), ErrorCode.INVALID_REQUEST, "query");
  }

  @Test
  @DisplayName("top_k out of range, fractional, a string or a boolean is INVALID_TOP_K")
  void invalidTopK() {
    for (String value : List.of("0", "-1", "21", "2.5", "\"5\"", "true")) {
      assertCode(() -> parser.parse(body("{\"query\": \"q\", \"top_k\": " + value + "}")), ErrorCode.INVALID_TOP_K, "top_k");
    }
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"k\": 0}")), ErrorCode.INVALID_TOP_K, "k");
  }

  @Test
  @DisplayName("top_k 5.0 is the integer 5 (JSON has one number type)")
  void wholeFloatTopK() {
    assertThat(parser.parse(body("{\"query\": \"q\", \"top_k\": 5.0}")).topK()).isEqualTo(5);
    assertThat(parser.parse(body("{\"query\": \"q\", \"top_k\": 20}")).topK()).isEqualTo(20);
  }

  @Test
  @DisplayName("with clamp_top_k an out-of-range top_k is clamped, a non-integer still fails")
  void clampTopK() {
    RequestParser clamping = parser(true);
    assertThat(clamping.parse(body("{\"query\": \"q\", \"top_k\": 500}")).topK()).isEqualTo(20);
    assertThat(clamping.parse(body("{\"query\": \"q\", \"top_k\": 0}")).topK()).isEqualTo(1);
    assertCode(() -> clamping.parse(body("{\"query\": \"q\", \"top_k\": \"many\"}")), ErrorCode.INVALID_TOP_K, "top_k");
  }

  @Test
  @DisplayName("a threshold outside 0..1 or not a number is INVALID_THRESHOLD")
  void invalidThreshold() {
    for (String value : List.of("-0.01", "1.5", "\"0.2\"", "false")) {
      assertCode(() -> parser.parse(body("{\"query\": \"q\", \"score_threshold\": " + value + "}")),
          ErrorCode.INVALID_THRESHOLD, "score_threshold");
    }
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"similarity_threshold\": 2}")),
        ErrorCode.INVALID_THRESHOLD, "similarity_threshold");
    assertThat(parser.parse(body("{\"query\": \"q\", \"score_threshold\": 0}")).scoreThreshold()).isZero();
    assertThat(parser.parse(body("{\"query\": \"q\", \"score_threshold\": 1}")).scoreThreshold()).isEqualTo(1.0);
  }

  @Test
  @DisplayName("an unknown filter key, a nested value, an empty array or a non-object filter is INVALID_REQUEST")
  void invalidFilter() {
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"filter\": {\"secret_field\": \"x\"}}")),
        ErrorCode.INVALID_REQUEST, "filter");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"filter\": {\"chapter\": {\"$ne\": \"x\"}}}")),
        ErrorCode.INVALID_REQUEST, "filter");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"filter\": {\"chapter\": [[\"x\"]]}}")),
        ErrorCode.INVALID_REQUEST, "filter");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"filter\": {\"chapter\": []}}")),
        ErrorCode.INVALID_REQUEST, "filter");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"filter\": {\"chapter\": null}}")),
        ErrorCode.INVALID_REQUEST, "filter");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"filters\": \"chapter=x\"}")),
        ErrorCode.INVALID_REQUEST, "filters");
  }

  @Test
  @DisplayName("filter values may be strings, numbers and booleans, alone or in arrays")
  void scalarFilters() {
    RetrievalRequest request = parser.parse(body(
        "{\"query\": \"q\", \"filter\": {\"chapter\": 3, \"section\": [\"a\", 2, true], \"module\": false}}"));
    assertThat(request.filter()).containsEntry("chapter", List.of(3))
        .containsEntry("section", List.of("a", 2, true))
        .containsEntry("module", List.of(false));
  }

  @Test
  @DisplayName("with QDRANT_COLLECTIONS set, a collection outside it is INVALID_REQUEST naming the variable to add it to")
  void collectionOutsideAllowList() {
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"collection\": \"elsewhere\"}")), ErrorCode.INVALID_REQUEST, "collection");
    assertThatThrownBy(() -> parser.parse(body("{\"query\": \"q\", \"collection\": \"elsewhere\"}")))
        .hasMessageContaining("QDRANT_COLLECTIONS")
        .hasMessageContaining("'elsewhere'");
  }

  @Test
  @DisplayName("with QDRANT_COLLECTIONS unset, any valid collection name is accepted (the store says whether it exists)")
  void anyCollectionWithoutAllowList() {
    AppConfig open = ConfigLoader.fromJson(new JsonObject(), Map.of());
    RequestParser openParser = new RequestParser(open.retrieval(), open.qdrant());
    assertThat(openParser.parse(body("{\"query\": \"q\", \"collection\": \"docu\"}")).collection()).isEqualTo("docu");
  }

  @Test
  @DisplayName("a collection that is not a valid name is INVALID_REQUEST stating the naming rule")
  void invalidCollectionName() {
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"collection\": \"../etc\"}")), ErrorCode.INVALID_REQUEST, "collection");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"collection\": 7}")), ErrorCode.INVALID_REQUEST, "collection");
    assertThatThrownBy(() -> parser.parse(body("{\"query\": \"q\", \"collection\": \"../etc\"}")))
        .hasMessageContaining(dev.ragretrieval.search.CollectionName.RULE);
  }

  @Test
  @DisplayName("include_context must be a boolean and max_context_chars a positive integer")
  void contextOptions() {
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"include_context\": \"yes\"}")), ErrorCode.INVALID_REQUEST, "include_context");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"max_context_chars\": 0}")), ErrorCode.INVALID_REQUEST, "max_context_chars");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"max_context_chars\": 1.5}")), ErrorCode.INVALID_REQUEST, "max_context_chars");
  }

  @Test
  @DisplayName("query parameters of GET /v1/retrieve/stream are typed like the JSON body")
  void queryParams() {
    MultiMap params = MultiMap.caseInsensitiveMultiMap()
        .add("query", "what is a topic")
        .add("top_k", "3")
        .add("score_threshold", "0.2")
        .add("collection", "other_book")
        .add("filter", "{\"chapter\": [\"c1\", \"c2\"]}")
        .add("context", "true");
    RetrievalRequest request = parser.parse(params);
    assertThat(request.query()).isEqualTo("what is a topic");
    assertThat(request.topK()).isEqualTo(3);
    assertThat(request.scoreThreshold()).isEqualTo(0.2);
    assertThat(request.collection()).isEqualTo("other_book");
    assertThat(request.filter()).containsEntry("chapter", List.of("c1", "c2"));
    assertThat(request.includeContext()).isTrue();

    assertCode(() -> parser.parse(MultiMap.caseInsensitiveMultiMap().add("query", "q").add("top_k", "five")),
        ErrorCode.INVALID_TOP_K, "top_k");
    assertCode(() -> parser.parse(MultiMap.caseInsensitiveMultiMap().add("query", "q").add("filter", "{not json")),
        ErrorCode.INVALID_REQUEST, "filter");
    assertCode(() -> parser.parse(MultiMap.caseInsensitiveMultiMap()), ErrorCode.EMPTY_QUERY, "query");
  }

  @Test
  @DisplayName("a batch keeps valid and invalid slots apart; its envelope is checked as a whole")
  void batch() {
    List<RequestParser.Slot> slots = parser.parseBatch(body(
        "{\"queries\": [{\"query\": \"a\"}, {\"query\": \"\"}, 5]}"));
    assertThat(slots).hasSize(3);
    assertThat(slots.get(0).valid()).isTrue();
    assertThat(slots.get(1).error().code()).isEqualTo(ErrorCode.EMPTY_QUERY);
    assertThat(slots.get(2).error().code()).isEqualTo(ErrorCode.INVALID_REQUEST);

    assertCode(() -> parser.parseBatch(body("{\"queries\": []}")), ErrorCode.INVALID_REQUEST, "queries");
    assertCode(() -> parser.parseBatch(body("{\"queries\": [{}, {}, {}, {}]}")), ErrorCode.INVALID_REQUEST, "queries");
    assertCode(() -> parser.parseBatch(body("{\"query\": \"a\"}")), ErrorCode.INVALID_REQUEST, "queries");
  }

  @Test
  @DisplayName("facet keys must be filterable")
  void facetKeys() {
    assertThat(parser.filterKey("chapter")).isEqualTo("chapter");
    assertCode(() -> parser.filterKey("text"), ErrorCode.INVALID_REQUEST, "key");
    assertCode(() -> parser.filterKey(null), ErrorCode.INVALID_REQUEST, "key");
  }

  @Test
  @DisplayName("search_mode: dense or hybrid in any case, absent = the service's default, anything else INVALID_REQUEST")
  void searchMode() {
    assertThat(parser.parse(body("{\"query\": \"q\", \"search_mode\": \"DENSE\"}")).searchMode())
        .isEqualTo(dev.ragretrieval.search.SearchMode.DENSE);
    assertThat(parser.parse(body("{\"query\": \"q\", \"search_mode\": \"hybrid\"}")).searchMode())
        .isEqualTo(dev.ragretrieval.search.SearchMode.HYBRID);
    assertThat(parser.parse(body("{\"query\": \"q\"}")).searchMode()).isNull();
    assertThat(parser.parse(MultiMap.caseInsensitiveMultiMap().add("query", "q").add("search_mode", "dense")).searchMode())
        .isEqualTo(dev.ragretrieval.search.SearchMode.DENSE);
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"search_mode\": \"sparse\"}")), ErrorCode.INVALID_REQUEST, "search_mode");
    assertCode(() -> parser.parse(body("{\"query\": \"q\", \"search_mode\": 1}")), ErrorCode.INVALID_REQUEST, "search_mode");
  }
}
