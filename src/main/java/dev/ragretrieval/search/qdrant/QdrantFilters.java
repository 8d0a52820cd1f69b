package dev.ragretrieval.search.qdrant;

import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.FieldCondition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.HasIdCondition;
import io.qdrant.client.grpc.Common.Match;
import io.qdrant.client.grpc.Common.Range;
import io.qdrant.client.grpc.Common.RepeatedIntegers;
import io.qdrant.client.grpc.Common.RepeatedStrings;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Builds Qdrant filters: every key must match; one value = exact match, several = any of them. */
public final class QdrantFilters {

  private QdrantFilters() {}

  /** Empty when there is nothing to filter on. Keys with an empty value list add no condition. */
  public static Optional<Filter> of(Map<String, List<Object>> filter) {
    Filter.Builder out = Filter.newBuilder();
    // sorted keys: the same request always sends the same filter
    new TreeMap<>(filter).forEach((key, values) -> {
      if (values != null && !values.isEmpty()) {
        out.addMust(condition(key, values));
      }
    });
    return out.getMustCount() == 0 ? Optional.empty() : Optional.of(out.build());
  }

  /** Points whose source_url is {@code sourceUrl}, except the ids to keep. */
  public static Filter staleChunks(String sourceUrl, Collection<String> keepIds) {
    Filter.Builder out = Filter.newBuilder().addMust(matches("source_url", sourceUrl));
    if (!keepIds.isEmpty()) {
      HasIdCondition.Builder ids = HasIdCondition.newBuilder();
      keepIds.forEach(id -> ids.addHasId(QdrantPayloads.toPointId(id)));
      out.addMustNot(Condition.newBuilder().setHasId(ids));
    }
    return out.build();
  }

  /** Points ingested from {@code source} whose source_url is none of {@code keepSourceUrls}. */
  public static Filter missingDocuments(String sourceKey, String source, Collection<String> keepSourceUrls) {
    Filter.Builder out = Filter.newBuilder().addMust(matches(sourceKey, source));
    if (!keepSourceUrls.isEmpty()) {
      out.addMustNot(field("source_url",
          Match.newBuilder().setKeywords(RepeatedStrings.newBuilder().addAllStrings(keepSourceUrls)).build()));
    }
    return out.build();
  }

  static Condition condition(String key, List<Object> values) {
    if (values.size() == 1) {
      return matches(key, values.get(0));
    }
    if (values.stream().allMatch(String.class::isInstance)) {
      RepeatedStrings.Builder strings = RepeatedStrings.newBuilder();
      values.forEach(v -> strings.addStrings((String) v));
      return field(key, Match.newBuilder().setKeywords(strings).build());
    }
    if (values.stream().allMatch(QdrantFilters::isIntegral)) {
      RepeatedIntegers.Builder integers = RepeatedIntegers.newBuilder();
      values.forEach(v -> integers.addIntegers(((Number) v).longValue()));
      return field(key, Match.newBuilder().setIntegers(integers).build());
    }
    // mixed kinds (say a string and a boolean): any one of the exact matches
    Filter.Builder any = Filter.newBuilder();
    values.forEach(v -> any.addShould(matches(key, v)));
    return Condition.newBuilder().setFilter(any).build();
  }

  static Condition matches(String key, Object value) {
    if (value instanceof Boolean b) {
      return field(key, Match.newBuilder().setBoolean(b).build());
    }
    if (isIntegral(value)) {
      return field(key, Match.newBuilder().setInteger(((Number) value).longValue()).build());
    }
    if (value instanceof Number n) {
      // Qdrant has no exact float match: a closed range of one point is the same thing
      double d = n.doubleValue();
      return Condition.newBuilder()
          .setField(FieldCondition.newBuilder().setKey(key).setRange(Range.newBuilder().setGte(d).setLte(d)))
          .build();
    }
    return field(key, Match.newBuilder().setKeyword(String.valueOf(value)).build());
  }

  private static boolean isIntegral(Object value) {
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
      return true;
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      return d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 9.0e15;
    }
    return false;
  }

  private static Condition field(String key, Match match) {
    return Condition.newBuilder().setField(FieldCondition.newBuilder().setKey(key).setMatch(match)).build();
  }
}
