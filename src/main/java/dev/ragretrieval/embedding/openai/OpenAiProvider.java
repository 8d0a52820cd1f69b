package dev.ragretrieval.embedding.openai;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.InputType;
import dev.ragretrieval.embedding.http.HttpEmbeddingProvider;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
  protected List<float[]> vectors(JsonObject body) {
    JsonArray data = body.getJsonArray("data");
    List<JsonObject> items = new ArrayList<>(data.size());
    for (int i = 0; i < data.size(); i++) {
      items.add(data.getJsonObject(i));
    }
    items.sort(Comparator.comparingInt(item -> item.getInteger("index")));
    List<float[]> vectors = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      if (items.get(i).getInteger("index") != i) {
        throw new IllegalStateException("indexes are not 0..n-1");
      }
      vectors.add(floats(items.get(i).getJsonArray("embedding")));
    }
    return vectors;
  }

  @Override
  protected String errorMessage(JsonObject body) {
    Object error = body.getValue("error");
    if (error instanceof JsonObject object && object.getValue("message") instanceof String message) {
      return message;
    }
    return error instanceof String message ? message : null;
  }
}
