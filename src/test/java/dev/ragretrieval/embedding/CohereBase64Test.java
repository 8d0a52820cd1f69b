package dev.ragretrieval.embedding;

import static dev.ragretrieval.embedding.EmbeddingTestConfigs.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.embedding.cohere.CohereProvider;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Cohere's base64 embeddings, and the fall back to float for an endpoint without them. */
class CohereBase64Test extends EmbeddingServerFixture {

  private static final String KEY = "test-cohere-key-b64";
  private static final int DIM = 16;
  private static final List<String> TEXTS = List.of("What is a ROS 2 node?", "How do topics work?",
      "A node is a process.", "", "Parameters are per node, services are request and reply.");

  CohereBase64Test() {
    super(KEY, DIM);
  }

  private CohereProvider provider(Vertx vertx, String baseUrl) {
    return new CohereProvider(vertx, EmbeddingTestConfigs.cohere(baseUrl, KEY, DIM, 1), RagMetrics.detached());
  }

  private Future<List<float[]>> embed(CohereProvider cohere, List<String> texts) {
    return cohere.embed(texts, InputType.SEARCH_DOCUMENT, in(Duration.ofSeconds(10)));
  }

  @Test
  @DisplayName("base64 answers give the vectors bit for bit that float answers give, for the tests' and Cohere-printed vectors")
  void base64EqualsFloat(Vertx vertx, VertxTestContext test) {
    List<List<float[]>> answers = new ArrayList<>();
    // base64 (the default), then float from a fresh provider while the stand-in ignores the type; both
    // again with dense vectors printed as Cohere prints them
    Future.succeededFuture()
        .compose(x -> embed(provider(vertx, server.baseUrl()), TEXTS)).map(answers::add)
        .compose(x -> {
          server.ignoreEmbeddingTypes(true);
          return embed(provider(vertx, server.baseUrl()), TEXTS);
        }).map(answers::add)
        .compose(x -> {
          server.ignoreEmbeddingTypes(false);
          server.cohereFloats(true);
          return embed(provider(vertx, server.baseUrl()), TEXTS);
        }).map(answers::add)
        .compose(x -> {
          server.ignoreEmbeddingTypes(true);
          return embed(provider(vertx, server.baseUrl()), TEXTS);
        }).map(answers::add)
        .onComplete(test.succeeding(x -> test.verify(() -> {
          for (int i = 0; i < TEXTS.size(); i++) {
            int[] sparse = bits(CohereTestServer.vectorFor(TEXTS.get(i), DIM));
            int[] dense = bits(CohereTestServer.denseVectorFor(TEXTS.get(i), DIM));
            assertThat(bits(answers.get(0).get(i))).as("base64, text %d", i).containsExactly(sparse);
            assertThat(bits(answers.get(1).get(i))).as("float, text %d", i).containsExactly(sparse);
            assertThat(bits(answers.get(2).get(i))).as("dense base64, text %d", i).containsExactly(dense);
            assertThat(bits(answers.get(3).get(i))).as("dense float, text %d", i).containsExactly(dense);
          }
          assertThat(embeddingTypes()).containsOnly("base64").hasSize(4);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("the bench's pooled answers come as base64 when asked, the same vectors as their printed floats")
  void pooledBase64(Vertx vertx, VertxTestContext test) {
    server.cohereFloats(true);
    List<float[]> pool = server.vectorPool(List.of("first pooled text", "second pooled text", "third"));
    List<List<float[]>> answers = new ArrayList<>();
    embed(provider(vertx, server.baseUrl()), TEXTS).map(answers::add)
        .compose(x -> {
          server.ignoreEmbeddingTypes(true);
          return embed(provider(vertx, server.baseUrl()), TEXTS);
        }).map(answers::add)
        .onComplete(test.succeeding(x -> test.verify(() -> {
          for (int i = 0; i < TEXTS.size(); i++) {
            int[] pooled = bits(pool.get(Math.floorMod(TEXTS.get(i).hashCode(), pool.size())));
            assertThat(bits(answers.get(0).get(i))).as("base64, text %d", i).containsExactly(pooled);
            assertThat(bits(answers.get(1).get(i))).as("float, text %d", i).containsExactly(pooled);
          }
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("an endpoint that refuses base64 with 400: the call succeeds through float at once, later calls ask for float only")
  void fallsBackToFloatOn400(Vertx vertx, VertxTestContext test) {
    server.refuseBase64(true);
    CohereProvider cohere = provider(vertx, server.baseUrl());
    List<List<float[]>> answers = new ArrayList<>();
    embed(cohere, TEXTS.subList(0, 2)).map(answers::add)
        .compose(x -> embed(cohere, TEXTS.subList(2, 4))).map(answers::add)
        .onComplete(test.succeeding(x -> test.verify(() -> {
          assertThat(answers.get(0).get(1)).containsExactly(CohereTestServer.vectorFor(TEXTS.get(1), DIM));
          assertThat(answers.get(1).get(0)).containsExactly(CohereTestServer.vectorFor(TEXTS.get(2), DIM));
          assertThat(embeddingTypes()).containsExactly("base64", "float", "float");
          assertThat(server.requests().get(1).getJsonArray("texts")).isEqualTo(new JsonArray(TEXTS.subList(0, 2)));
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a 2xx answer without base64 or float vectors, and a 422, also switch to float")
  void fallsBackOnAnswerWithoutVectorsAnd422(Vertx vertx, VertxTestContext test) {
    List<JsonObject> received = new CopyOnWriteArrayList<>();
    Function<Integer, Function<JsonObject, Answer>> endpoint = refusal -> body -> {
      received.add(body);
      if (body.getJsonArray("embedding_types").contains("base64")) {
        return refusal == 200 ? new Answer(200, "{\"id\":\"x\",\"embeddings\":{\"int8\":[[1,2]]},\"meta\":{}}")
            : new Answer(refusal, "{\"message\":\"embedding_types: unsupported value\"}");
      }
      JsonArray floats = new JsonArray();
      body.getJsonArray("texts").forEach(t -> floats.add(floats((String) t)));
      return new Answer(200, new JsonObject().put("embeddings", new JsonObject().put("float", floats)).encode());
    };
    scripted(vertx, endpoint.apply(200))
        .compose(port -> twoCalls(vertx, "http://127.0.0.1:" + port))
        .compose(second -> {
          test.verify(() -> {
            assertThat(second.get(0)).containsExactly(CohereTestServer.vectorFor(TEXTS.get(1), DIM));
            assertThat(types(received)).containsExactly("base64", "float", "float");
          });
          received.clear();
          return scripted(vertx, endpoint.apply(422));
        })
        .compose(port -> twoCalls(vertx, "http://127.0.0.1:" + port))
        .onComplete(test.succeeding(second -> test.verify(() -> {
          assertThat(second.get(0)).containsExactly(CohereTestServer.vectorFor(TEXTS.get(1), DIM));
          assertThat(types(received)).containsExactly("base64", "float", "float");
          test.completeNow();
        })));
  }

  /** Two calls of one text each through one provider at {@code baseUrl}: the second call's vectors. */
  private Future<List<float[]>> twoCalls(Vertx vertx, String baseUrl) {
    CohereProvider cohere = provider(vertx, baseUrl);
    return embed(cohere, TEXTS.subList(0, 1)).compose(x -> embed(cohere, TEXTS.subList(1, 2)));
  }

  @Test
  @DisplayName("after a 400 to base64, the float attempt's failure is what the caller gets, and base64 stays")
  void floatFailureAfterRefusal(Vertx vertx, VertxTestContext test) {
    server.failNext(1, 400, null);
    server.failNext(1, 503, null);
    CohereProvider cohere = provider(vertx, server.baseUrl());
    embed(cohere, TEXTS.subList(0, 1))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains("503");
          assertThat(embeddingTypes()).containsExactly("base64", "float");
        })));
  }

  @Test
  @DisplayName("401, 403, 429 and 5xx to base64 are not refusals of the format: no float attempt")
  void otherFailuresDoNotFallBack(Vertx vertx, VertxTestContext test) {
    server.failNext(1, 403, null);
    server.failNext(1, 429, "0");
    server.failNext(1, 500, null);
    CohereProvider cohere = provider(vertx, server.baseUrl());
    embed(cohere, TEXTS.subList(0, 1))
        .transform(x -> embed(cohere, TEXTS.subList(0, 1)))
        .transform(x -> embed(cohere, TEXTS.subList(0, 1)))
        .transform(x -> embed(cohere, TEXTS.subList(0, 1)))
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          assertThat(vectors.get(0)).containsExactly(CohereTestServer.vectorFor(TEXTS.get(0), DIM));
          assertThat(embeddingTypes()).containsExactly("base64", "base64", "base64", "base64");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("an endpoint that ignores embedding_types and answers float works, and the provider keeps asking base64")
  void endpointIgnoringTypes(Vertx vertx, VertxTestContext test) {
    server.ignoreEmbeddingTypes(true);
    CohereProvider cohere = provider(vertx, server.baseUrl());
    embed(cohere, TEXTS.subList(0, 2))
        .compose(x -> embed(cohere, TEXTS.subList(2, 4)))
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          assertThat(vectors.get(1)).containsExactly(CohereTestServer.vectorFor(TEXTS.get(3), DIM));
          assertThat(embeddingTypes()).containsExactly("base64", "base64");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("big-endian base64 (a producer in Java's byte order) is decoded right")
  void bigEndianBytes(Vertx vertx, VertxTestContext test) {
    server.base64BigEndian(true);
    server.cohereFloats(true); // dense vectors: every value's low bytes differ from a swapped one's
    embed(provider(vertx, server.baseUrl()), TEXTS)
        .onComplete(test.succeeding(vectors -> test.verify(() -> {
          for (int i = 0; i < TEXTS.size(); i++) {
            assertThat(bits(vectors.get(i))).containsExactly(bits(CohereTestServer.denseVectorFor(TEXTS.get(i), DIM)));
          }
          assertThat(embeddingTypes()).containsExactly("base64");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("base64 of the wrong byte count, of no plausible vector, or not base64 is UPSTREAM_ERROR, with no float attempt")
  void malformedBase64(Vertx vertx, VertxTestContext test) {
    byte[] nans = new byte[DIM * 4];
    Arrays.fill(nans, (byte) 0xFF);
    List<String> strings = List.of(
        "\"" + Base64.getEncoder().encodeToString(new byte[DIM * 4 - 1]) + "\"",
        "\"" + Base64.getEncoder().encodeToString(nans) + "\"",
        "\"not base64!\"",
        "42");
    List<JsonObject> received = new CopyOnWriteArrayList<>();
    List<String> failures = new CopyOnWriteArrayList<>();
    scripted(vertx, body -> {
      received.add(body);
      return new Answer(200, "{\"id\":\"x\",\"embeddings\":{\"base64\":[" + strings.get(received.size() - 1) + "]}}");
    }).compose(port -> {
      CohereProvider cohere = provider(vertx, "http://127.0.0.1:" + port);
      Future<Void> chain = Future.succeededFuture();
      for (int i = 0; i < strings.size(); i++) {
        chain = chain.compose(x -> embed(cohere, TEXTS.subList(0, 1))
            .transform(done -> {
              failures.add(done.failed() ? done.cause().getMessage() : "succeeded");
              return Future.<Void>succeededFuture();
            }));
      }
      return chain;
    }).onComplete(test.succeeding(x -> test.verify(() -> {
      assertThat(failures).hasSize(strings.size()).allSatisfy(message ->
          assertThat(message).isEqualTo("Cohere answered with malformed JSON"));
      assertThat(types(received)).containsOnly("base64").hasSize(strings.size());
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("whole float32s of another count are the usual wrong-size UPSTREAM_ERROR")
  void wrongDimensionBase64(Vertx vertx, VertxTestContext test) {
    server.wrongDimensionNext(1);
    embed(provider(vertx, server.baseUrl()), TEXTS.subList(0, 1))
        .onComplete(test.failing(serviceError(test, error -> {
          assertThat(error.code()).isEqualTo(ErrorCode.UPSTREAM_ERROR);
          assertThat(error.getMessage()).contains("size " + (DIM + 1)).contains("expected " + DIM);
          assertThat(embeddingTypes()).containsExactly("base64");
        })));
  }

  private record Answer(int status, String body) {}

  /** A server on an ephemeral port answering each /v2/embed body as {@code answer} says; the port. */
  private static Future<Integer> scripted(Vertx vertx, Function<JsonObject, Answer> answer) {
    return vertx.createHttpServer()
        .requestHandler(request -> request.body().onSuccess(body -> {
          Answer reply = answer.apply(body.toJsonObject());
          request.response().setStatusCode(reply.status()).putHeader("Content-Type", "application/json").end(reply.body());
        }))
        .listen(0, "127.0.0.1")
        .map(server -> server.actualPort());
  }

  private static JsonArray floats(String text) {
    JsonArray values = new JsonArray();
    for (float v : CohereTestServer.vectorFor(text, DIM)) {
      values.add(v);
    }
    return values;
  }

  /** The one embedding type each recorded request of the stand-in asked for, in arrival order. */
  private List<String> embeddingTypes() {
    return types(server.requests());
  }

  private static List<String> types(List<JsonObject> requests) {
    return requests.stream().map(r -> {
      JsonArray types = r.getJsonArray("embedding_types");
      assertThat(types).hasSize(1);
      return types.getString(0);
    }).toList();
  }

  private static int[] bits(float[] vector) {
    int[] bits = new int[vector.length];
    for (int i = 0; i < vector.length; i++) {
      bits[i] = Float.floatToRawIntBits(vector[i]);
    }
    return bits;
  }
}
