package dev.ragretrieval.embedding.cohere;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.embedding.http.HttpEmbeddingProvider;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Cohere's {@code POST /v2/embed}: {@code {"model", "texts", "input_type", "embedding_types":
 * ["float"], "truncate": "END"}} answered by {@code {"id", "embeddings": {"float": [[...]]},
 * "texts", "meta"}}. At most 96 texts per call (Cohere's limit).
 */
public final class CohereProvider extends HttpEmbeddingProvider {

  public CohereProvider(Vertx vertx, AppConfig.Embedding config, RagMetrics metrics) {
    super(vertx, config, "cohere", "Cohere", join(config.cohere().baseUrl(), "/v2/embed"),
        config.cohere().apiKey(), config.cohere().model(), config.cohere().dimension(),
        config.cohere().maxTextsPerCall(), metrics);
  }

  @Override
  protected JsonObject requestBody(List<String> texts, InputType inputType) {
    return new JsonObject()
        .put("model", model())
        .put("texts", new JsonArray(new ArrayList<>(texts)))
        .put("input_type", inputType.wireName())
        .put("embedding_types", new JsonArray().add("float"))
        // long chunks lose their tail rather than failing the whole batch
        .put("truncate", "END");
  }

  /**
   * Reads {@code embeddings.float}, its numbers straight from the bytes; what comes before it (id,
   * perhaps the echoed texts) is skipped, what comes after it (texts, meta) is not read at all.
   */
  @Override
  protected List<float[]> vectors(byte[] body) throws IOException {
    try (JsonParser json = parser(body)) {
      next(json, JsonToken.START_OBJECT);
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        if (json.nextToken() == JsonToken.START_OBJECT && "embeddings".equals(field)) {
          while (json.nextToken() == JsonToken.FIELD_NAME) {
            if ("float".equals(json.currentName())) {
              return vectorListFromBytes(json, body);
            }
            json.nextToken();
            json.skipChildren();
          }
        } else {
          json.skipChildren();
        }
      }
    }
    throw new IllegalStateException("no embeddings.float in the answer");
  }

  @Override
  protected String errorMessage(JsonObject body) {
    return body.getValue("message") instanceof String message ? message : null;
  }
}
