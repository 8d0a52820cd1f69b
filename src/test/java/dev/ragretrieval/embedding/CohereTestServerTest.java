package dev.ragretrieval.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class CohereTestServerTest {

  @Test
  @DisplayName("vectorFor is deterministic, unit length, and texts sharing words are closer")
  void vectorForRanksSharedWords() {
    float[] a = CohereTestServer.vectorFor("ROS 2 nodes communicate over topics", 256);
    float[] b = CohereTestServer.vectorFor("How do nodes communicate over topics?", 256);
    float[] c = CohereTestServer.vectorFor("The recipe needs two cups of flour", 256);
    assertThat(CohereTestServer.vectorFor("ROS 2 nodes communicate over topics", 256)).containsExactly(a);
    assertThat(Vectors.norm(a)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    assertThat(Vectors.norm(CohereTestServer.vectorFor("", 8))).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    assertThat(Vectors.cosine(a, b)).isGreaterThan(0.5).isGreaterThan(Vectors.cosine(a, c) + 0.3);
  }

  @Test
  @DisplayName("the server refuses what Cohere refuses: wrong key 401, missing input_type and >96 texts 400")
  void validatesLikeCohere(Vertx vertx, VertxTestContext test) {
    JsonObject good = new JsonObject().put("model", "embed-english-v3.0").put("texts", new JsonArray().add("a"))
        .put("input_type", "search_query").put("embedding_types", new JsonArray().add("float"));
    JsonArray tooMany = new JsonArray();
    for (int i = 0; i < 97; i++) {
      tooMany.add("t" + i);
    }
    CohereTestServer.start(vertx, "k", 4).onComplete(test.succeeding(server -> {
      WebClient client = WebClient.create(vertx);
      String url = server.baseUrl() + "/v2/embed";
      client.postAbs(url).bearerTokenAuthentication("nope").sendJsonObject(good)
          .compose(wrongKey -> {
            test.verify(() -> assertThat(wrongKey.statusCode()).isEqualTo(401));
            return client.postAbs(url).bearerTokenAuthentication("k").sendJsonObject(good.copy().put("texts", tooMany));
          })
          .compose(over -> {
            test.verify(() -> {
              assertThat(over.statusCode()).isEqualTo(400);
              assertThat(over.bodyAsJsonObject().getString("message")).contains("96");
            });
            JsonObject noType = good.copy();
            noType.remove("input_type");
            return client.postAbs(url).bearerTokenAuthentication("k").sendJsonObject(noType);
          })
          .compose(noType -> {
            test.verify(() -> assertThat(noType.statusCode()).isEqualTo(400));
            return client.postAbs(url).bearerTokenAuthentication("k").sendJsonObject(good);
          })
          .onComplete(test.succeeding(ok -> test.verify(() -> {
            assertThat(ok.statusCode()).isEqualTo(200);
            JsonObject body = ok.bodyAsJsonObject();
            assertThat(body.getJsonObject("embeddings").getJsonArray("float").getJsonArray(0)).hasSize(4);
            assertThat(body.getJsonArray("texts")).isEqualTo(new JsonArray().add("a"));
            assertThat(server.callCount()).isEqualTo(4);
            server.stop().onComplete(test.succeedingThenComplete());
          })));
    }));
  }

  @Test
  @DisplayName("base64 is each vector's little-endian float32s; both types when both are asked; the switches refuse or ignore it")
  void answersBase64(Vertx vertx, VertxTestContext test) {
    JsonObject both = new JsonObject().put("model", "embed-english-v3.0").put("texts", new JsonArray().add("a b").add("c"))
        .put("input_type", "search_query").put("embedding_types", new JsonArray().add("float").add("base64"));
    JsonObject base64Only = both.copy().put("embedding_types", new JsonArray().add("base64"));
    CohereTestServer.start(vertx, "k", 8).onComplete(test.succeeding(server -> {
      WebClient client = WebClient.create(vertx);
      String url = server.baseUrl() + "/v2/embed";
      client.postAbs(url).bearerTokenAuthentication("k").sendJsonObject(both)
          .compose(answer -> {
            test.verify(() -> {
              JsonObject embeddings = answer.bodyAsJsonObject().getJsonObject("embeddings");
              for (int i = 0; i < 2; i++) {
                float[] expected = CohereTestServer.vectorFor(both.getJsonArray("texts").getString(i), 8);
                java.nio.FloatBuffer decoded = java.nio.ByteBuffer
                    .wrap(java.util.Base64.getDecoder().decode(embeddings.getJsonArray("base64").getString(i)))
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
                float[] fromBase64 = new float[decoded.remaining()];
                decoded.get(fromBase64);
                assertThat(fromBase64).containsExactly(expected);
                JsonArray floats = embeddings.getJsonArray("float").getJsonArray(i);
                for (int d = 0; d < 8; d++) {
                  assertThat(floats.getFloat(d)).isEqualTo(expected[d]);
                }
              }
            });
            return client.postAbs(url).bearerTokenAuthentication("k").sendJsonObject(base64Only);
          })
          .compose(answer -> {
            test.verify(() -> assertThat(answer.bodyAsJsonObject().getJsonObject("embeddings").fieldNames())
                .containsExactly("base64"));
            server.ignoreEmbeddingTypes(true);
            return client.postAbs(url).bearerTokenAuthentication("k").sendJsonObject(base64Only);
          })
          .compose(answer -> {
            test.verify(() -> assertThat(answer.bodyAsJsonObject().getJsonObject("embeddings").fieldNames())
                .containsExactly("float"));
            server.ignoreEmbeddingTypes(false);
            server.refuseBase64(true);
            return client.postAbs(url).bearerTokenAuthentication("k").sendJsonObject(base64Only);
          })
          .onComplete(test.succeeding(refused -> test.verify(() -> {
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.bodyAsJsonObject().getString("message")).contains("only produces float");
            server.stop().onComplete(test.succeedingThenComplete());
          })));
    }));
  }
}
