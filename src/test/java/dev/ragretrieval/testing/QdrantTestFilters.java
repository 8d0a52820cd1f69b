package dev.ragretrieval.testing;

import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.FieldCondition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.Match;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.Common.Range;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Qdrant's filter semantics for {@link QdrantTestServer}: must / must_not / should (and
 * min_should), nested filters, HasId, is_empty / is_null, and field conditions with keyword,
 * integer, boolean, any-of and except matches or a numeric range. A key may be a dotted path
 * into nested objects; an array matches when any element does, as in Qdrant.
 */
final class QdrantTestFilters {

  private QdrantTestFilters() {}

  static boolean matches(Filter filter, PointId id, Map<String, Value> payload) {
    for (Condition c : filter.getMustList()) {
      if (!matches(c, id, payload)) {
        return false;
      }
    }
    for (Condition c : filter.getMustNotList()) {
      if (matches(c, id, payload)) {
        return false;
      }
    }
    if (filter.getShouldCount() > 0 && filter.getShouldList().stream().noneMatch(c -> matches(c, id, payload))) {
      return false;
    }
    if (filter.hasMinShould()) {
      long hits = filter.getMinShould().getConditionsList().stream().filter(c -> matches(c, id, payload)).count();
      return hits >= filter.getMinShould().getMinCount();
    }
    return true;
  }

  static boolean matches(Condition condition, PointId id, Map<String, Value> payload) {
    return switch (condition.getConditionOneOfCase()) {
      case FIELD -> matches(condition.getField(), payload);
      case HAS_ID -> condition.getHasId().getHasIdList().contains(id);
      case FILTER -> matches(condition.getFilter(), id, payload);
      case IS_EMPTY -> valuesAt(payload, condition.getIsEmpty().getKey()).stream().allMatch(v -> v.hasNullValue());
      case IS_NULL -> {
        List<Value> raw = rawAt(payload, condition.getIsNull().getKey());
        yield raw.size() == 1 && raw.get(0).hasNullValue();
      }
      default -> throw new StatusException(GrpcStatus.UNIMPLEMENTED,
          "QdrantTestServer does not support condition " + condition.getConditionOneOfCase());
    };
  }

  private static boolean matches(FieldCondition field, Map<String, Value> payload) {
    List<Value> values = valuesAt(payload, field.getKey());
    if (field.hasMatch()) {
      Match match = field.getMatch();
      return switch (match.getMatchValueCase()) {
        case KEYWORD -> values.stream().anyMatch(v -> v.hasStringValue() && v.getStringValue().equals(match.getKeyword()));
        case INTEGER -> values.stream().anyMatch(v -> v.hasIntegerValue() && v.getIntegerValue() == match.getInteger());
        case BOOLEAN -> values.stream().anyMatch(v -> v.hasBoolValue() && v.getBoolValue() == match.getBoolean());
        case KEYWORDS -> values.stream().anyMatch(v -> v.hasStringValue()
            && match.getKeywords().getStringsList().contains(v.getStringValue()));
        case INTEGERS -> values.stream().anyMatch(v -> v.hasIntegerValue()
            && match.getIntegers().getIntegersList().contains(v.getIntegerValue()));
        case EXCEPT_KEYWORDS -> values.stream().anyMatch(v -> v.hasStringValue()
            && !match.getExceptKeywords().getStringsList().contains(v.getStringValue()));
        case EXCEPT_INTEGERS -> values.stream().anyMatch(v -> v.hasIntegerValue()
            && !match.getExceptIntegers().getIntegersList().contains(v.getIntegerValue()));
        default -> throw new StatusException(GrpcStatus.UNIMPLEMENTED,
            "QdrantTestServer does not support match " + match.getMatchValueCase());
      };
    }
    if (field.hasRange()) {
      Range range = field.getRange();
      return values.stream().filter(v -> v.hasIntegerValue() || v.hasDoubleValue()).anyMatch(v -> {
        double d = v.hasIntegerValue() ? v.getIntegerValue() : v.getDoubleValue();
        return (!range.hasGt() || d > range.getGt()) && (!range.hasGte() || d >= range.getGte())
            && (!range.hasLt() || d < range.getLt()) && (!range.hasLte() || d <= range.getLte());
      });
    }
    throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer supports only match and range conditions");
  }

  /** The scalar values at a dotted key, arrays flattened. */
  static List<Value> valuesAt(Map<String, Value> payload, String key) {
    List<Value> out = new ArrayList<>();
    for (Value v : rawAt(payload, key)) {
      if (v.hasListValue()) {
        out.addAll(v.getListValue().getValuesList());
      } else {
        out.add(v);
      }
    }
    return out;
  }

  private static List<Value> rawAt(Map<String, Value> payload, String key) {
    List<Value> current = new ArrayList<>();
    String[] parts = key.split("\\.");
    Value first = payload.get(parts[0]);
    if (first == null) {
      return current;
    }
    current.add(first);
    for (int i = 1; i < parts.length; i++) {
      List<Value> next = new ArrayList<>();
      for (Value v : current) {
        List<Value> objects = v.hasListValue() ? v.getListValue().getValuesList() : List.of(v);
        for (Value o : objects) {
          if (o.hasStructValue() && o.getStructValue().containsFields(parts[i])) {
            next.add(o.getStructValue().getFieldsOrThrow(parts[i]));
          }
        }
      }
      current = next;
    }
    return current;
  }
}
