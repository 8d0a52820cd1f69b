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

  /** Reads {@code embeddings.float}; the echoed texts, id and meta are skipped unread. */
  @Override
  protected List<float[]> vectors(JsonParser body) throws IOException {
    next(body, JsonToken.START_OBJECT);
    List<float[]> vectors = null;
    while (body.nextToken() == JsonToken.FIELD_NAME) {
      String field = body.currentName();
      if (body.nextToken() == JsonToken.START_OBJECT && "embeddings".equals(field)) {
        while (body.nextToken() == JsonToken.FIELD_NAME) {
          if ("float".equals(body.currentName())) {
            vectors = vectorList(body);
          } else {
            body.nextToken();
            body.skipChildren();
          }
        }
      } else {
        body.skipChildren();
      }
    }
    if (vectors == null) {
      throw new IllegalStateException("no embeddings.float in the answer");
    }
    return vectors;
  }

  @Override
  protected String errorMessage(JsonObject body) {
    return body.getValue("message") instanceof String message ? message : null;
  }
}
