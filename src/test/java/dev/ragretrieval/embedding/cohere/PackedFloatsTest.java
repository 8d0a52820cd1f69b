package dev.ragretrieval.embedding.cohere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ragretrieval.testing.CohereTestServer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PackedFloatsTest {

  /** Two answers' vectors, and their base64 as Cohere sends it (little-endian float32s). */
  private static final float[] FIRST = CohereTestServer.denseVectorFor("open a file", 1024);
  private static final float[] SECOND = CohereTestServer.denseVectorFor("close it", 1024);
  private static final String A = CohereTestServer.base64(FIRST, ByteOrder.LITTLE_ENDIAN);
  private static final String B = CohereTestServer.base64(SECOND, ByteOrder.LITTLE_ENDIAN);

  @Test
  @DisplayName("little-endian float32s (numpy's, Cohere's) come back bit for bit")
  void littleEndian() {
    float[] vector = CohereTestServer.denseVectorFor("how do I open a file for writing?", 1024);
    assertThat(bits(PackedFloats.decode(bytes(vector, ByteOrder.LITTLE_ENDIAN)))).containsExactly(bits(vector));
  }

  @Test
  @DisplayName("big-endian float32s (Java's default) are recognised and come back bit for bit")
  void bigEndian() {
    float[] vector = CohereTestServer.denseVectorFor("how do I open a file for writing?", 1024);
    assertThat(bits(PackedFloats.decode(bytes(vector, ByteOrder.BIG_ENDIAN)))).containsExactly(bits(vector));
    // short vectors too, and exact values whose low bytes are zero (read little-endian: tiny subnormals)
    float[] exact = {0.5f, -0.25f, 0f, 0.75f, -0.5f, 0.125f};
    assertThat(bits(PackedFloats.decode(bytes(exact, ByteOrder.BIG_ENDIAN)))).containsExactly(bits(exact));
    float[] dense = CohereTestServer.denseVectorFor("file", 16);
    assertThat(bits(PackedFloats.decode(bytes(dense, ByteOrder.BIG_ENDIAN)))).containsExactly(bits(dense));
  }

  @Test
  @DisplayName("a JSON array of base64 strings is read from the body's bytes, spaces or not; an escape is left to Jackson")
  void arrayFromTheBody() {
    for (String json : new String[] {"{\"base64\":[\"" + A + "\",\"" + B + "\"]}",
        "{\"base64\": [ \"" + A + "\" ,\n \"" + B + "\" ] }"}) {
      byte[] body = json.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      java.util.List<float[]> read = PackedFloats.decodeArray(body, json.indexOf('['));
      assertThat(read).hasSize(2);
      assertThat(bits(read.get(0))).containsExactly(bits(FIRST));
      assertThat(bits(read.get(1))).containsExactly(bits(SECOND));
    }
    byte[] empty = "[ ]".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(PackedFloats.decodeArray(empty, 0)).isEmpty();
    // base64's '/' may come escaped as "\/": legal JSON, read by the parser instead
    byte[] escaped = ("[\"" + A.replace("/", "\\/") + "\"]").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(A).contains("/");
    assertThat(PackedFloats.decodeArray(escaped, 0)).isNull();
    for (String bad : new String[] {"[1, 2]", "[\"" + A + "\"", "[\"" + A + "\" \"" + B + "\"]", "[\"!!\"]"}) {
      assertThatThrownBy(() -> PackedFloats.decodeArray(bad.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0))
          .isInstanceOf(RuntimeException.class);
    }
  }

  @Test
  @DisplayName("with the vectors' dimension, each string's end is looked for where such a vector ends; anything else is scanned")
  void arrayWithTheDimension() {
    String json = "{\"base64\": [ \"" + A + "\" ,\n \"" + B + "\" ] }";
    byte[] body = json.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    // the right dimension, a wrong one (the guess lands inside a string) and none read the same vectors
    for (int dimension : new int[] {1024, 1000, 2048, 0}) {
      java.util.List<float[]> read = PackedFloats.decodeArray(body, json.indexOf('['), dimension);
      assertThat(read).hasSize(2);
      assertThat(bits(read.get(0))).containsExactly(bits(FIRST));
      assertThat(bits(read.get(1))).containsExactly(bits(SECOND));
    }
    // a guess that lands on a later string's closing quote: the range holds quotes, so it is scanned
    float[] longer = CohereTestServer.denseVectorFor("open", 16); // 88 characters of base64
    float[] shorter = CohereTestServer.denseVectorFor("close", 12); // 64
    String l = CohereTestServer.base64(longer, ByteOrder.LITTLE_ENDIAN);
    String s = CohereTestServer.base64(shorter, ByteOrder.LITTLE_ENDIAN);
    String tricky = "[\"" + l + "\"," + " ".repeat(21) + "\"" + s + "\"]";
    assertThat(tricky.charAt(2 + 176)).isEqualTo('"'); // where 33 dimensions' base64 (176 characters) would end
    java.util.List<float[]> read = PackedFloats.decodeArray(tricky.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, 33);
    assertThat(bits(read.get(0))).containsExactly(bits(longer));
    assertThat(bits(read.get(1))).containsExactly(bits(shorter));
    // an escape still goes to the parser, and garbage of the right length is still refused
    byte[] escaped = ("[\"" + A.replace("/", "\\/") + "\"]").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(PackedFloats.decodeArray(escaped, 0, 1024)).isNull();
    byte[] nan = ("[\"" + "/".repeat(5460) + "/w==\"]").getBytes(java.nio.charset.StandardCharsets.US_ASCII); // 4096 bytes 0xFF
    assertThatThrownBy(() -> PackedFloats.decodeArray(nan, 0, 1024)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("plausible");
  }

  @Test
  @DisplayName("Cohere's reader: an answer whose base64 has escaped slashes is read by the parser, to the same vectors")
  void escapedAnswerThroughTheParser() throws Exception {
    float[] vector = CohereTestServer.denseVectorFor("open a file", 1024);
    String a = CohereTestServer.base64(vector, ByteOrder.LITTLE_ENDIAN);
    assertThat(a).contains("/");
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      CohereProvider provider = new CohereProvider(vertx,
          dev.ragretrieval.embedding.EmbeddingTestConfigs.cohere("http://127.0.0.1:1", "key", 1024, 1),
          dev.ragretrieval.observability.RagMetrics.detached());
      for (String text : new String[] {a, a.replace("/", "\\/")}) {
        byte[] body = ("{\"id\":\"x\",\"embeddings\":{\"base64\":[\"" + text + "\"]},\"texts\":[\"open a file\"]}")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(bits(provider.vectors(body).get(0))).containsExactly(bits(vector));
      }
    } finally {
      vertx.close();
    }
  }

  @Test
  @DisplayName("values of every size an embedding holds, zeros of both signs and a zero vector read little-endian")
  void littleEndianEdgeValues() {
    float[] values = {-0.016679477f, 3.4e-05f, -1.2345678e-05f, 1e-07f, 0f, -0f, 1f, -1f, Float.MIN_VALUE * 5, 999f};
    assertThat(bits(PackedFloats.decode(bytes(values, ByteOrder.LITTLE_ENDIAN)))).containsExactly(bits(values));
    assertThat(PackedFloats.decode(new byte[64])).containsExactly(new float[16]);
  }

  @Test
  @DisplayName("bytes that are no plausible vector in either order, or not whole float32s, are refused")
  void garbage() {
    byte[] nans = new byte[64];
    Arrays.fill(nans, (byte) 0xFF);
    assertThatThrownBy(() -> PackedFloats.decode(nans)).isInstanceOf(IllegalStateException.class);
    float[] huge = new float[16];
    Arrays.fill(huge, 1e30f); // bytes 0x7149F2CA; the other way round -7.9e6
    assertThatThrownBy(() -> PackedFloats.decode(bytes(huge, ByteOrder.LITTLE_ENDIAN)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> PackedFloats.decode(new byte[63])).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("63 bytes");
  }

  @Test
  @DisplayName("plausible: finite, at most 1e3, largest not vanishingly small unless all zero")
  void plausible() {
    assertThat(PackedFloats.plausible(new float[] {0.1f, -999f})).isTrue();
    assertThat(PackedFloats.plausible(new float[] {0f, 0f})).isTrue();
    assertThat(PackedFloats.plausible(new float[] {0.1f, 1001f})).isFalse();
    assertThat(PackedFloats.plausible(new float[] {0.1f, Float.NaN})).isFalse();
    assertThat(PackedFloats.plausible(new float[] {0.1f, Float.NEGATIVE_INFINITY})).isFalse();
    assertThat(PackedFloats.plausible(new float[] {1e-8f, -1e-9f})).isFalse();
    assertThat(PackedFloats.plausible(new float[] {-0f, 0f})).isTrue();
    assertThat(PackedFloats.plausible(new float[] {Float.MIN_VALUE, -0f})).isFalse();
    assertThat(PackedFloats.plausible(new float[] {-1000f, 1e-6f})).isTrue();
    assertThat(PackedFloats.plausible(new float[] {0.1f, Float.intBitsToFloat(0xffc00001)})).isFalse(); // a NaN with the sign bit
  }

  static byte[] bytes(float[] vector, ByteOrder order) {
    ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(order);
    bytes.asFloatBuffer().put(vector);
    return bytes.array();
  }

  static int[] bits(float[] vector) {
    int[] bits = new int[vector.length];
    for (int i = 0; i < vector.length; i++) {
      bits[i] = Float.floatToRawIntBits(vector[i]);
    }
    return bits;
  }
}
