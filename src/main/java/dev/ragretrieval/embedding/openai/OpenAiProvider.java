package dev.ragretrieval.embedding.openai;

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
import java.util.Comparator;
import java.util.List;

/**
 * Any OpenAI-compatible {@code POST /v1/embeddings} (OpenAI, Azure-style gateways, vLLM, Ollama,
 * LiteLLM...): {@code {"model", "input": [...], "encoding_format": "float", "dimensions"?}}
 * answered by {@code {"data": [{"index": i, "embedding": [...]}]}}. The input type has no
 * equivalent there and is not sent.
 */
public final class OpenAiProvider extends HttpEmbeddingProvider {

  public OpenAiProvider(Vertx vertx, AppConfig.Embedding config, RagMetrics metrics) {
    super(vertx, config, "openai", "the OpenAI-compatible embedding API",
        join(config.openai().baseUrl(), "/v1/embeddings"), config.openai().apiKey(),
        config.openai().model(), config.openai().dimensions(), config.openai().maxTextsPerCall(), metrics);
  }

  @Override
  protected JsonObject requestBody(List<String> texts, InputType inputType) {
    JsonObject body = new JsonObject()
        .put("model", model())
        .put("input", new JsonArray(new ArrayList<>(texts)))
        .put("encoding_format", "float");
    // only the text-embedding-3 family can shorten vectors; other servers may reject the field
    if (model().startsWith("text-embedding-3")) {
      body.put("dimensions", dimension());
    }
    return body;
  }

  @Override
  protected List<float[]> vectors(byte[] body) throws IOException {
    try (JsonParser json = parser(body)) {
      List<float[]> vectors = data(json);
      end(json);
      return vectors;
    }
  }

  /** Reads {@code data[].index} and {@code data[].embedding}; model and usage are skipped unread. */
  private List<float[]> data(JsonParser body) throws IOException {
    next(body, JsonToken.START_OBJECT);
    List<Indexed> items = null;
    while (body.nextToken() == JsonToken.FIELD_NAME) {
      String field = body.currentName();
      if (body.nextToken() == JsonToken.START_ARRAY && "data".equals(field)) {
        items = new ArrayList<>();
        while (body.nextToken() == JsonToken.START_OBJECT) {
          items.add(item(body));
        }
        if (body.currentToken() != JsonToken.END_ARRAY) {
          throw new IllegalStateException("data must hold objects");
        }
      } else {
        body.skipChildren();
      }
    }
    if (items == null) {
      throw new IllegalStateException("no data in the answer");
    }
    items.sort(Comparator.comparingInt(Indexed::index));
    List<float[]> vectors = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      if (items.get(i).index() != i) {
        throw new IllegalStateException("indexes are not 0..n-1");
      }
      vectors.add(items.get(i).embedding());
    }
    return vectors;
  }

  /** One {@code data} item, the parser on its START_OBJECT. */
  private Indexed item(JsonParser body) throws IOException {
    Integer index = null;
    float[] embedding = null;
    while (body.nextToken() == JsonToken.FIELD_NAME) {
      String field = body.currentName();
      JsonToken value = body.nextToken();
      if ("index".equals(field) && value.isNumeric()) {
        index = body.getIntValue();
      } else if ("embedding".equals(field)) {
        embedding = floats(body);
      } else {
        body.skipChildren();
      }
    }
    if (index == null || embedding == null) {
      throw new IllegalStateException("a data item needs an index and an embedding");
    }
    return new Indexed(index, embedding);
  }

  private record Indexed(int index, float[] embedding) {}

  @Override
  protected String errorMessage(JsonObject body) {
    Object error = body.getValue("error");
    if (error instanceof JsonObject object && object.getValue("message") instanceof String message) {
      return message;
    }
    return error instanceof String message ? message : null;
  }
}
