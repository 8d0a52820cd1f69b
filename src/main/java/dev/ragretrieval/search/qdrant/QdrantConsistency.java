package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.config.AppConfig;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.QuantizationConfig;
import io.qdrant.client.grpc.Collections.QuantizationType;
import io.qdrant.client.grpc.Collections.ScalarQuantization;
import io.qdrant.client.grpc.Points.PrefetchQuery;
import io.qdrant.client.grpc.Points.QuantizationSearchParams;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.ReadConsistency;
import io.qdrant.client.grpc.Points.ReadConsistencyType;
import io.qdrant.client.grpc.Points.SearchParams;
import io.qdrant.client.grpc.Points.WriteOrdering;
import io.qdrant.client.grpc.Points.WriteOrderingType;
import java.util.Optional;

/**
 * What the qdrant.layout, write_ordering and read_consistency settings put into the messages:
 * the layout of a collection the service creates, the ordering of every write, and the read
 * consistency (plus, for int8 collections, rescoring) of every search. Unset settings send
 * nothing, so Qdrant's own defaults apply.
 */
final class QdrantConsistency {

  /**
   * int8 candidates are picked on the quantized vectors, then rescored with the originals; twice
   * the wanted hits are picked so rescoring can move a near miss back in.
   */
  static final double OVERSAMPLING = 2.0;

  private final AppConfig.Layout layout;
  private final WriteOrdering ordering;
  private final Optional<ReadConsistency> read;

  QdrantConsistency(AppConfig.Qdrant config) {
    this.layout = config.layout();
    this.ordering = WriteOrdering.newBuilder().setType(config.writeOrdering()
        .map(o -> switch (o) {
          case WEAK -> WriteOrderingType.Weak;
          case MEDIUM -> WriteOrderingType.Medium;
          case STRONG -> WriteOrderingType.Strong;
        })
        .orElse(WriteOrderingType.Weak)).build();
    this.read = config.readConsistency().map(QdrantConsistency::readConsistency);
  }

  /** The collection to create, with the configured shards, replicas, write consistency, payload storage and quantization. */
  CreateCollection laidOut(CreateCollection.Builder create) {
    layout.shardNumber().ifPresent(create::setShardNumber);
    layout.replicationFactor().ifPresent(create::setReplicationFactor);
    layout.writeConsistencyFactor().ifPresent(create::setWriteConsistencyFactor);
    if (layout.onDiskPayload()) {
      create.setOnDiskPayload(true);
    }
    if (layout.quantization() == AppConfig.Quantization.INT8) {
      // the int8 copy stays in RAM (that is the point: the originals may live on disk)
      create.setQuantizationConfig(QuantizationConfig.newBuilder().setScalar(
          ScalarQuantization.newBuilder().setType(QuantizationType.Int8).setAlwaysRam(true)));
    }
    return create.build();
  }

  /** The ordering every write carries (weak, Qdrant's default, when unset). */
  WriteOrdering ordering() {
    return ordering;
  }

  Optional<ReadConsistency> readConsistency() {
    return read;
  }

  /** A search with the read consistency, and rescoring on each dense nearest search when the layout is int8. */
  QueryPoints tuned(QueryPoints query) {
    boolean int8 = layout.quantization() == AppConfig.Quantization.INT8;
    if (read.isEmpty() && !int8) {
      return query;
    }
    QueryPoints.Builder out = query.toBuilder();
    read.ifPresent(out::setReadConsistency);
    if (int8) {
      if (query.hasQuery() && isDense(query.getQuery())) {
        out.setParams(rescored(query.getParams()));
      }
      for (PrefetchQuery.Builder prefetch : out.getPrefetchBuilderList()) {
        if (prefetch.hasQuery() && isDense(prefetch.getQuery())) {
          prefetch.setParams(rescored(prefetch.getParams()));
        }
      }
    }
    return out.build();
  }

  private static boolean isDense(io.qdrant.client.grpc.Points.Query query) {
    return query.hasNearest() && query.getNearest().hasDense();
  }

  private static SearchParams rescored(SearchParams params) {
    return params.toBuilder().setQuantization(QuantizationSearchParams.newBuilder()
        .setRescore(true).setOversampling(OVERSAMPLING)).build();
  }

  private static ReadConsistency readConsistency(AppConfig.ReadConsistency setting) {
    ReadConsistency.Builder out = ReadConsistency.newBuilder();
    if (setting.factor().isPresent()) {
      return out.setFactor(setting.factor().getAsInt()).build();
    }
    return out.setType(switch (setting.type().orElseThrow()) {
      case "all" -> ReadConsistencyType.All;
      case "quorum" -> ReadConsistencyType.Quorum;
      default -> ReadConsistencyType.Majority;
    }).build();
  }
}
