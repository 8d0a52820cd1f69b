package dev.ragretrieval.eval;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One Validation Test: a question ({@code query_text}), its right answers ({@code expected_results}:
 * chunk ids, sources or sections, see {@link Expected}; any of them is a hit), its category and its
 * own success criteria. The first shape, {@code {"query", "expected"}}, is read the same way.
 */
public record EvalCase(String testId, String query, List<Expected> expected, String category,
    SuccessCriteria criteria, String executedAt) {

  public static final String UNCATEGORIZED = "uncategorized";

  /**
   * Per test: {@code minAccuracy} is the least share of its expected results found in the top k
   * (1.0 = all of them, any value above 0 with one expected result = it must be found);
   * {@code minSimilarityScore} the least score of its first right result. Null = not checked.
   */
  public record SuccessCriteria(Double minAccuracy, Double minSimilarityScore) {
    public static final SuccessCriteria NONE = new SuccessCriteria(null, null);

    public boolean any() {
      return minAccuracy != null || minSimilarityScore != null;
    }
  }

  public EvalCase {
    expected = List.copyOf(expected);
  }

  /** A test in the first shape: any of {@code expected} (strings) is a hit. */
  public EvalCase(String query, List<String> expected) {
    this(null, query, expected.stream().map(Expected::of).toList(), UNCATEGORIZED, SuccessCriteria.NONE, null);
  }

  /**
   * A JSON array of tests, an object with a {@code tests} array, or one JSON object per line
   * (JSONL; blank lines and # comments skipped). Tests without a {@code test_id} get their position.
   */
  public static List<EvalCase> parse(String content) {
    String text = content.strip();
    List<JsonObject> objects = new ArrayList<>();
    try {
      if (text.startsWith("[")) {
        addAll(objects, new JsonArray(text));
      } else if (envelope(text) != null) {
        addAll(objects, envelope(text));
      } else {
        int line = 0;
        for (String raw : text.split("\\R")) {
          line++;
          String l = raw.strip();
          if (l.isEmpty() || l.startsWith("#")) {
            continue;
          }
          try {
            objects.add(new JsonObject(l));
          } catch (DecodeException | ClassCastException e) {
            throw invalid("line " + line + " is not a JSON object");
          }
        }
      }
    } catch (DecodeException e) {
      throw invalid("the file is not valid JSON");
    }
    List<EvalCase> cases = new ArrayList<>();
    for (JsonObject object : objects) {
      cases.add(of(object, cases.size() + 1));
    }
    if (cases.isEmpty()) {
      throw invalid("the file holds no tests");
    }
    return cases;
  }

  /** One test object; {@code position} (1-based) names it when it has no test_id. */
  static EvalCase of(JsonObject object, int position) {
    String query = firstString(object, "query_text", "query", "question");
    List<Expected> expected = expected(object.containsKey("expected_results")
        ? object.getValue("expected_results") : object.getValue("expected"));
    String testId = object.getValue("test_id") == null ? "test-" + position : String.valueOf(object.getValue("test_id"));
    if (query == null || expected.isEmpty()) {
      throw invalid("test " + testId + " needs a \"query_text\" (or \"query\") string and \"expected_results\""
          + " (or \"expected\"): a string, an object or an array of them");
    }
    String category = firstString(object, "test_category", "category");
    return new EvalCase(testId, query, expected, category == null ? UNCATEGORIZED : category,
        criteria(testId, object.getValue("success_criteria")), firstString(object, "executed_at"));
  }

  /** The "tests" array of a file that is one JSON object holding one; else null (JSON lines). */
  private static JsonArray envelope(String text) {
    if (!text.startsWith("{")) {
      return null;
    }
    try {
      return new JsonObject(text).getValue("tests") instanceof JsonArray tests ? tests : null;
    } catch (DecodeException e) {
      return null;
    }
  }

  private static void addAll(List<JsonObject> objects, JsonArray array) {
    for (Object item : array) {
      if (!(item instanceof JsonObject object)) {
        throw invalid("every test must be a JSON object");
      }
      objects.add(object);
    }
  }

  private static List<Expected> expected(Object value) {
    List<Object> items = new ArrayList<>();
    if (value instanceof JsonArray array) {
      array.forEach(items::add); // JsonArray's iterator wraps nested maps as JsonObject
    } else if (value != null) {
      items.add(value);
    }
    List<Expected> found = new ArrayList<>();
    for (Object item : items) {
      if (item instanceof String s && !s.isBlank()) {
        found.add(Expected.of(s));
      } else if (item instanceof JsonObject o && Expected.of(o) != null) {
        found.add(Expected.of(o));
      }
    }
    return found;
  }

  private static SuccessCriteria criteria(String testId, Object value) {
    if (value == null) {
      return SuccessCriteria.NONE;
    }
    if (!(value instanceof JsonObject object)) {
      throw invalid("test " + testId + ": \"success_criteria\" must be an object");
    }
    return new SuccessCriteria(share(testId, object, "min_accuracy"), share(testId, object, "min_similarity_score"));
  }

  private static Double share(String testId, JsonObject object, String key) {
    Object value = object.getValue(key);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Number n) || n.doubleValue() < 0 || n.doubleValue() > 1) {
      throw invalid("test " + testId + ": \"" + key + "\" must be a number within 0..1");
    }
    return n.doubleValue();
  }

  private static String firstString(JsonObject object, String... keys) {
    for (String key : keys) {
      if (object.getValue(key) instanceof String s && !s.isBlank()) {
        return s.strip();
      }
    }
    return null;
  }

  private static ServiceException invalid(String message) {
    return new ServiceException(ErrorCode.INVALID_REQUEST, message);
  }
}
