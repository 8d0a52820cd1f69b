package dev.ragretrieval.app;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/** Small helpers the end-to-end tests share: reading streams and error bodies. */
final class Http {

  private Http() {}

  record Event(String name, JsonObject data) {}

  /** Parses {@code event: name\ndata: json\n\n} frames. */
  static List<Event> sse(String body) {
    List<Event> events = new ArrayList<>();
    for (String frame : body.split("\n\n")) {
      if (frame.isBlank()) {
        continue;
      }
      String name = null;
      StringBuilder data = new StringBuilder();
      for (String line : frame.split("\n")) {
        if (line.startsWith("event: ")) {
          name = line.substring(7);
        } else if (line.startsWith("data: ")) {
          data.append(line.substring(6));
        }
      }
      if (name != null) {
        events.add(new Event(name, new JsonObject(data.toString())));
      }
    }
    return events;
  }

  /** One JSON object per line. */
  static List<JsonObject> ndjson(String body) {
    List<JsonObject> lines = new ArrayList<>();
    for (String line : body.split("\n")) {
      if (!line.isBlank()) {
        lines.add(new JsonObject(line));
      }
    }
    return lines;
  }

  static JsonObject error(HttpResponse<Buffer> response) {
    return response.bodyAsJsonObject().getJsonObject("error");
  }
}
