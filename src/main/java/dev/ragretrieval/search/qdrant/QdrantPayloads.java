package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.search.ScoredPoint;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.Points;
import io.qdrant.client.grpc.JsonWithInt.ListValue;
import io.qdrant.client.grpc.JsonWithInt.NullValue;
import io.qdrant.client.grpc.JsonWithInt.Struct;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between Vert.x JSON and Qdrant's payload values, between id strings and PointIds, and
 * Qdrant's hits to the store's.
 */
public final class QdrantPayloads {

  private QdrantPayloads() {}

  public static Map<String, Value> toPayload(JsonObject json) {
    Map<String, Value> fields = new LinkedHashMap<>();
    if (json != null) {
      json.forEach(entry -> fields.put(entry.getKey(), toValue(entry.getValue())));
    }
    return fields;
  }

  public static JsonObject fromPayload(Map<String, Value> payload) {
    JsonObject json = new JsonObject();
    payload.forEach((key, value) -> json.put(key, fromValue(value)));
    return json;
  }

  @SuppressWarnings("unchecked")
  public static Value toValue(Object value) {
    Value.Builder out = Value.newBuilder();
    if (value == null) {
      return out.setNullValue(NullValue.NULL_VALUE).build();
    }
    if (value instanceof String s) {
      return out.setStringValue(s).build();
    }
    if (value instanceof Boolean b) {
      return out.setBoolValue(b).build();
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
      return out.setIntegerValue(((Number) value).longValue()).build();
    }
    if (value instanceof BigInteger big) {
      return big.bitLength() < 64 ? out.setIntegerValue(big.longValue()).build() : out.setDoubleValue(big.doubleValue()).build();
    }
    if (value instanceof Number n) {
      if (value instanceof BigDecimal decimal && decimal.stripTrailingZeros().scale() <= 0 && decimal.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
        return out.setIntegerValue(decimal.longValue()).build();
      }
      return out.setDoubleValue(n.doubleValue()).build();
    }
    if (value instanceof JsonObject object) {
      return out.setStructValue(Struct.newBuilder().putAllFields(toPayload(object))).build();
    }
    if (value instanceof Map<?, ?> map) {
      return toValue(new JsonObject((Map<String, Object>) map));
    }
    if (value instanceof JsonArray array) {
      return toValue(array.getList());
    }
    if (value instanceof List<?> list) {
      ListValue.Builder items = ListValue.newBuilder();
      list.forEach(item -> items.addValues(toValue(item)));
      return out.setListValue(items).build();
    }
    // Instants, enums and the like travel as JSON writes them: as text
    return out.setStringValue(String.valueOf(value)).build();
  }

  public static Object fromValue(Value value) {
    return switch (value.getKindCase()) {
      case NULL_VALUE, KIND_NOT_SET -> null;
      case DOUBLE_VALUE -> value.getDoubleValue();
      case INTEGER_VALUE -> value.getIntegerValue();
      case STRING_VALUE -> value.getStringValue();
      case BOOL_VALUE -> value.getBoolValue();
      case STRUCT_VALUE -> fromPayload(value.getStructValue().getFieldsMap());
      case LIST_VALUE -> {
        JsonArray array = new JsonArray();
        value.getListValue().getValuesList().forEach(item -> array.add(fromValue(item)));
        yield array;
      }
    };
  }

  /** Digits only = a numeric id; anything else is sent as a UUID (Qdrant checks it). */
  public static PointId toPointId(String id) {
    if (!id.isEmpty() && id.length() <= 20 && id.chars().allMatch(Character::isDigit)) {
      try {
        return PointId.newBuilder().setNum(Long.parseUnsignedLong(id)).build();
      } catch (NumberFormatException tooBig) {
        // falls through to uuid, which Qdrant will reject with a clear message
      }
    }
    return PointId.newBuilder().setUuid(id).build();
  }

  public static String fromPointId(PointId id) {
    return switch (id.getPointIdOptionsCase()) {
      case NUM -> Long.toUnsignedString(id.getNum());
      case UUID -> id.getUuid();
      case POINTIDOPTIONS_NOT_SET -> "";
    };
  }

  /** Qdrant's hits as the store's: id, score and payload (bench/answer-path times this too). */
  public static List<ScoredPoint> scored(List<Points.ScoredPoint> points) {
    return points.stream()
        .map(p -> new ScoredPoint(fromPointId(p.getId()), p.getScore(), fromPayload(p.getPayloadMap())))
        .toList();
  }
}
