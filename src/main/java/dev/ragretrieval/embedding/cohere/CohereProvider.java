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
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cohere's {@code POST /v2/embed}: {@code {"model", "texts", "input_type", "embedding_types":
 * ["base64"], "truncate": "END"}} answered by {@code {"id", "embeddings": {"base64": ["...",
 * ...]}, "texts", "meta"}}, each string a vector's float32s, little-endian ({@link PackedFloats}).
 * Base64 rather than {@code float}: reading a thousand decimal numbers per text was a seventh of a
 * new question's CPU, and the base64 is the float32s themselves, bit for bit. An answer with
 * {@code embeddings.float} is read too (an endpoint that ignores {@code embedding_types}); an
 * endpoint that refuses base64 (HTTP 400 or 422) or answers without either is asked again at once
 * for {@code float}, and once that works, every later call asks for {@code float}. At most 96
 * texts per call (Cohere's limit).
 */
public final class CohereProvider extends HttpEmbeddingProvider {

  private static final Logger LOG = LoggerFactory.getLogger(CohereProvider.class);
  private static final String BASE64 = "base64";
  private static final String FLOAT = "float";

  /** false once an endpoint has shown it does not do base64: later calls ask for float. */
  private final AtomicBoolean base64 = new AtomicBoolean(true);

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
        .put("embedding_types", new JsonArray().add(base64.get() ? BASE64 : FLOAT))
        // long chunks lose their tail rather than failing the whole batch
        .put("truncate", "END");
  }

  /**
   * Reads {@code embeddings.base64} or {@code embeddings.float}, whichever comes first; what comes
   * before it (id, perhaps the echoed texts) is skipped, what comes after it (texts, meta) is not
   * read at all. The floats are read straight from the bytes, the base64 straight into bytes.
   */
  @Override
  protected List<float[]> vectors(byte[] body) throws IOException {
    try (JsonParser json = parser(body)) {
      next(json, JsonToken.START_OBJECT);
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        if (json.nextToken() == JsonToken.START_OBJECT && "embeddings".equals(field)) {
          while (json.nextToken() == JsonToken.FIELD_NAME) {
            String type = json.currentName();
            if (BASE64.equals(type)) {
              return base64Vectors(json, body, dimension());
            }
            if (FLOAT.equals(type)) {
              return vectorListFromBytes(json, body);
            }
            json.nextToken();
            json.skipChildren();
          }
        } else {
          json.skipChildren();
        }
      }
      if (json.currentToken() != JsonToken.END_OBJECT) {
        throw new IllegalStateException("the answer is not a JSON object");
      }
    }
    throw new NoVectorsInFormat("no embeddings.base64 or embeddings.float in the answer");
  }

  /**
   * {@code ["...", ...]}, read from the body's bytes ({@link PackedFloats#decodeArray}); strings
   * with JSON escapes are left to Jackson, which decodes each string's base64 itself.
   */
  private static List<float[]> base64Vectors(JsonParser json, byte[] body, int dimension) throws IOException {
    next(json, JsonToken.START_ARRAY);
    long start = json.currentTokenLocation().getByteOffset();
    if (start >= 0 && start < body.length && body[(int) start] == '[') {
      List<float[]> read = PackedFloats.decodeArray(body, (int) start, dimension);
      if (read != null) {
        return read;
      }
    }
    List<float[]> vectors = new ArrayList<>();
    JsonToken token;
    while ((token = json.nextToken()) == JsonToken.VALUE_STRING) {
      vectors.add(PackedFloats.decode(json.getBinaryValue()));
    }
    if (token != JsonToken.END_ARRAY) {
      throw new IllegalStateException("embeddings.base64 must be an array of strings");
    }
    return vectors;
  }

  /** A refused base64 request is asked again for float: a Cohere-compatible endpoint may not do base64. */
  @Override
  protected JsonObject otherFormat(JsonObject refused, String why) {
    JsonArray types = refused.getJsonArray("embedding_types");
    if (types == null || !types.contains(BASE64)) {
      return null;
    }
    return refused.copy().put("embedding_types", new JsonArray().add(FLOAT));
  }

  /**
   * Float worked where base64 did not: keep to float. Only a success switches, so a 400 that float
   * does not cure either (too many texts, an unknown model) leaves base64 in place.
   */
  @Override
  protected void otherFormatServed(JsonObject body, String why) {
    if (base64.compareAndSet(true, false)) {
      LOG.warn("the Cohere endpoint does not serve base64 embeddings ({}), float did: asking for float from now on",
          why);
    }
  }

  @Override
  protected String errorMessage(JsonObject body) {
    return body.getValue("message") instanceof String message ? message : null;
  }
}
