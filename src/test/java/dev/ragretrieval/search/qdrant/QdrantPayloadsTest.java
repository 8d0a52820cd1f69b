package dev.ragretrieval.search.qdrant;

import static org.assertj.core.api.Assertions.assertThat;

import io.qdrant.client.grpc.JsonWithInt.Value;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class QdrantPayloadsTest {

  @Test
  @DisplayName("JSON values map to Qdrant's typed values and back unchanged")
  void roundTrip() {
    JsonObject json = new JsonObject()
        .put("s", "text").put("i", 3).put("l", 1L << 40).put("d", 1.5).put("b", true).putNull("n")
        .put("list", new JsonArray().add(1).add("two").addNull())
        .put("obj", new JsonObject().put("inner", new JsonObject().put("x", -2)));

    Map<String, Value> payload = QdrantPayloads.toPayload(json);

    assertThat(payload.get("i").getIntegerValue()).isEqualTo(3);
    assertThat(payload.get("d").getDoubleValue()).isEqualTo(1.5);
    assertThat(payload.get("b").getBoolValue()).isTrue();
    assertThat(payload.get("n").hasNullValue()).isTrue();
    assertThat(payload.get("list").getListValue().getValuesCount()).isEqualTo(3);
    assertThat(payload.get("obj").getStructValue().getFieldsOrThrow("inner").getStructValue()
        .getFieldsOrThrow("x").getIntegerValue()).isEqualTo(-2);
    assertThat(QdrantPayloads.fromPayload(payload)).isEqualTo(json);
  }

  @Test
  @DisplayName("ids: digits are numeric point ids, anything else a UUID; both print back the same")
  void pointIds() {
    assertThat(QdrantPayloads.toPointId("42").getNum()).isEqualTo(42);
    assertThat(QdrantPayloads.toPointId("18446744073709551615").getNum()).isEqualTo(-1L);
    assertThat(QdrantPayloads.fromPointId(QdrantPayloads.toPointId("18446744073709551615"))).isEqualTo("18446744073709551615");
    String uuid = "5c56c793-69f3-4fbf-87e6-c4bf54c28c26";
    assertThat(QdrantPayloads.toPointId(uuid).getUuid()).isEqualTo(uuid);
    assertThat(QdrantPayloads.fromPointId(QdrantPayloads.toPointId(uuid))).isEqualTo(uuid);
  }
}
