package dev.ragretrieval.eval;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One question and what a right answer points at: a source_url (full or its path end), a section
 * title, a chunk_id, or {@code source_url#section}. Several expected values mean any of them.
 */
public record EvalCase(String query, List<String> expected) {

  public EvalCase {
    expected = List.copyOf(expected);
  }

  /** A JSON array of cases, or one JSON object per line (blank lines and # comments skipped). */
  public static List<EvalCase> parse(String content) {
    String text = content.strip();
    List<JsonObject> objects = new ArrayList<>();
    try {
      if (text.startsWith("[")) {
        for (Object item : new JsonArray(text)) {
          if (!(item instanceof JsonObject object)) {
            throw invalid("every entry must be a JSON object");
          }
          objects.add(object);
        }
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
          } catch (DecodeException e) {
            throw invalid("line " + line + " is not a JSON object");
          }
        }
      }
    } catch (DecodeException e) {
      throw invalid("the file is not valid JSON");
    }
    List<EvalCase> cases = new ArrayList<>();
    for (JsonObject object : objects) {
      String query = object.getValue("query") instanceof String q ? q : object.getValue("question") instanceof String q2 ? q2 : null;
      Object expected = object.getValue("expected");
      List<String> values = new ArrayList<>();
      if (expected instanceof String s) {
        values.add(s);
      } else if (expected instanceof JsonArray array) {
        array.forEach(v -> {
          if (v instanceof String s) {
            values.add(s);
          }
        });
      }
      if (query == null || query.isBlank() || values.isEmpty()) {
        throw invalid("every case needs a \"query\" string and an \"expected\" string or array: " + object.encode());
      }
      cases.add(new EvalCase(query, values));
    }
    if (cases.isEmpty()) {
      throw invalid("the file holds no cases");
    }
    return cases;
  }

  private static ServiceException invalid(String message) {
    return new ServiceException(ErrorCode.INVALID_REQUEST, message);
  }
}
