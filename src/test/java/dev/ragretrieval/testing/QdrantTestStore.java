package dev.ragretrieval.testing;

import io.qdrant.client.grpc.Collections.CollectionDescription;
import io.qdrant.client.grpc.Collections.CollectionConfig;
import io.qdrant.client.grpc.Collections.CollectionExists;
import io.qdrant.client.grpc.Collections.CollectionExistsRequest;
import io.qdrant.client.grpc.Collections.CollectionExistsResponse;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CollectionOperationResponse;
import io.qdrant.client.grpc.Collections.CollectionParams;
import io.qdrant.client.grpc.Collections.CollectionStatus;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.DeleteCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.GetCollectionInfoRequest;
import io.qdrant.client.grpc.Collections.GetCollectionInfoResponse;
import io.qdrant.client.grpc.Collections.ListCollectionsRequest;
import io.qdrant.client.grpc.Collections.ListCollectionsResponse;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorParamsMap;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.BatchResult;
import io.qdrant.client.grpc.Points.CountPoints;
import io.qdrant.client.grpc.Points.CountResponse;
import io.qdrant.client.grpc.Points.CountResult;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.FacetCounts;
import io.qdrant.client.grpc.Points.FacetHit;
import io.qdrant.client.grpc.Points.FacetResponse;
import io.qdrant.client.grpc.Points.FacetValue;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsOperationResponse;
import io.qdrant.client.grpc.Points.QueryBatchPoints;
import io.qdrant.client.grpc.Points.QueryBatchResponse;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.QueryResponse;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.UpdateResult;
import io.qdrant.client.grpc.Points.UpdateStatus;
import io.qdrant.client.grpc.Points.UpsertPoints;
import io.qdrant.client.grpc.Points.Vector;
import io.qdrant.client.grpc.Points.WithPayloadSelector;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory data behind {@link QdrantTestServer}: collections of points searched by exact
 * brute-force cosine similarity. Every method is synchronized: the server calls it from its event
 * loop, tests call it from their own thread. Errors are {@link StatusException}s with Qdrant's codes
 * and message texts.
 */
final class QdrantTestStore {

  /** One stored point; {@code key} is the normalised id ("u:" + uuid or "n:" + number). */
  record StoredPoint(PointId id, float[] vector, Map<String, Value> payload) {}

  static final class TestCollection {
    final int dimension;
    final String vectorName; // "" = one unnamed vector
    final Map<String, StoredPoint> points = new LinkedHashMap<>();
    final Map<String, FieldType> indexes = new TreeMap<>();

    TestCollection(int dimension, String vectorName) {
      this.dimension = dimension;
      this.vectorName = vectorName;
    }
  }

  private final Map<String, TestCollection> collections = new LinkedHashMap<>();
  private final AtomicLong operationIds = new AtomicLong();

  // ---- direct access for tests ----

  synchronized void createCollection(String name, int dimension, String vectorName) {
    if (collections.containsKey(name)) {
      throw alreadyExists(name);
    }
    collections.put(name, new TestCollection(dimension, vectorName == null ? "" : vectorName));
  }

  synchronized void put(String collection, PointId id, float[] vector, Map<String, Value> payload) {
    TestCollection c = collection(collection);
    checkDimension(c, vector.length);
    PointId normal = normalise(id);
    c.points.put(key(normal), new StoredPoint(normal, vector.clone(), new LinkedHashMap<>(payload)));
  }

  synchronized long count(String collection) {
    TestCollection c = collections.get(collection);
    return c == null ? 0 : c.points.size();
  }

  synchronized Set<String> ids(String collection) {
    Set<String> ids = new LinkedHashSet<>();
    collection(collection).points.values().forEach(p -> ids.add(idText(p.id())));
    return ids;
  }

  synchronized Map<String, Value> payload(String collection, String id) {
    StoredPoint p = collection(collection).points.get(key(parseId(id)));
    return p == null ? null : Map.copyOf(p.payload());
  }

  synchronized Map<String, FieldType> indexes(String collection) {
    return Map.copyOf(collection(collection).indexes);
  }

  synchronized boolean exists(String collection) {
    return collections.containsKey(collection);
  }

  // ---- Collections service ----

  synchronized CollectionOperationResponse create(CreateCollection request) {
    VectorsConfig config = request.getVectorsConfig();
    if (config.hasParams()) {
      checkCosine(config.getParams());
      createCollection(request.getCollectionName(), (int) config.getParams().getSize(), "");
    } else if (config.hasParamsMap() && config.getParamsMap().getMapCount() == 1) {
      Map.Entry<String, VectorParams> only = config.getParamsMap().getMapMap().entrySet().iterator().next();
      checkCosine(only.getValue());
      createCollection(request.getCollectionName(), (int) only.getValue().getSize(), only.getKey());
    } else {
      throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer supports one dense vector per collection");
    }
    return CollectionOperationResponse.newBuilder().setResult(true).build();
  }

  synchronized CollectionOperationResponse delete(DeleteCollection request) {
    boolean removed = collections.remove(request.getCollectionName()) != null;
    return CollectionOperationResponse.newBuilder().setResult(removed).build();
  }

  synchronized GetCollectionInfoResponse get(GetCollectionInfoRequest request) {
    TestCollection c = collection(request.getCollectionName());
    VectorParams params = VectorParams.newBuilder().setSize(c.dimension).setDistance(Distance.Cosine).build();
    VectorsConfig vectors = c.vectorName.isEmpty()
        ? VectorsConfig.newBuilder().setParams(params).build()
        : VectorsConfig.newBuilder().setParamsMap(VectorParamsMap.newBuilder().putMap(c.vectorName, params)).build();
    CollectionInfo.Builder info = CollectionInfo.newBuilder()
        .setStatus(CollectionStatus.Green)
        .setSegmentsCount(1)
        .setPointsCount(c.points.size())
        .setIndexedVectorsCount(c.points.size())
        .setConfig(CollectionConfig.newBuilder().setParams(CollectionParams.newBuilder()
            .setShardNumber(1).setVectorsConfig(vectors)));
    c.indexes.forEach((field, type) -> info.putPayloadSchema(field, PayloadSchemaInfo.newBuilder()
        .setDataType(schemaType(type)).setPoints(c.points.size()).build()));
    return GetCollectionInfoResponse.newBuilder().setResult(info).build();
  }

  synchronized ListCollectionsResponse list(ListCollectionsRequest request) {
    ListCollectionsResponse.Builder out = ListCollectionsResponse.newBuilder();
    collections.keySet().forEach(name -> out.addCollections(CollectionDescription.newBuilder().setName(name)));
    return out.build();
  }

  synchronized CollectionExistsResponse collectionExists(CollectionExistsRequest request) {
    return CollectionExistsResponse.newBuilder()
        .setResult(CollectionExists.newBuilder().setExists(collections.containsKey(request.getCollectionName())))
        .build();
  }

  // ---- Points service ----

  synchronized PointsOperationResponse createFieldIndex(CreateFieldIndexCollection request) {
    collection(request.getCollectionName()).indexes.put(request.getFieldName(), request.getFieldType());
    return completed();
  }

  synchronized PointsOperationResponse upsert(UpsertPoints request) {
    TestCollection c = collection(request.getCollectionName());
    List<StoredPoint> accepted = new ArrayList<>();
    // check everything first: Qdrant applies a batch whole or not at all
    for (PointStruct p : request.getPointsList()) {
      float[] vector = vectorOf(c, p);
      checkDimension(c, vector.length);
      accepted.add(new StoredPoint(normalise(p.getId()), vector, new LinkedHashMap<>(p.getPayloadMap())));
    }
    accepted.forEach(p -> c.points.put(key(p.id()), p));
    return completed();
  }

  synchronized PointsOperationResponse deletePoints(DeletePoints request) {
    TestCollection c = collection(request.getCollectionName());
    switch (request.getPoints().getPointsSelectorOneOfCase()) {
      case POINTS -> request.getPoints().getPoints().getIdsList().forEach(id -> c.points.remove(key(normalise(id))));
      case FILTER -> {
        Filter filter = request.getPoints().getFilter();
        c.points.values().removeIf(p -> QdrantTestFilters.matches(filter, p.id(), p.payload()));
      }
      default -> throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: no points selector");
    }
    return completed();
  }

  synchronized CountResponse countPoints(CountPoints request) {
    TestCollection c = collection(request.getCollectionName());
    long n = c.points.values().stream()
        .filter(p -> !request.hasFilter() || QdrantTestFilters.matches(request.getFilter(), p.id(), p.payload()))
        .count();
    return CountResponse.newBuilder().setResult(CountResult.newBuilder().setCount(n)).build();
  }

  synchronized QueryResponse query(QueryPoints request) {
    return QueryResponse.newBuilder().addAllResult(search(request.getCollectionName(), request)).build();
  }

  synchronized QueryBatchResponse queryBatch(QueryBatchPoints request) {
    collection(request.getCollectionName());
    QueryBatchResponse.Builder out = QueryBatchResponse.newBuilder();
    for (QueryPoints q : request.getQueryPointsList()) {
      out.addResult(BatchResult.newBuilder().addAllResult(search(request.getCollectionName(), q)));
    }
    return out.build();
  }

  synchronized FacetResponse facet(FacetCounts request) {
    TestCollection c = collection(request.getCollectionName());
    Map<FacetValue, Long> counts = new HashMap<>();
    for (StoredPoint p : c.points.values()) {
      if (request.hasFilter() && !QdrantTestFilters.matches(request.getFilter(), p.id(), p.payload())) {
        continue;
      }
      // a point counts once per distinct value it carries
      QdrantTestFilters.valuesAt(p.payload(), request.getKey()).stream()
          .map(QdrantTestStore::facetValue)
          .filter(v -> v != null)
          .distinct()
          .forEach(v -> counts.merge(v, 1L, Long::sum));
    }
    long limit = request.hasLimit() ? request.getLimit() : 10;
    FacetResponse.Builder out = FacetResponse.newBuilder();
    counts.entrySet().stream()
        .sorted(Map.Entry.<FacetValue, Long>comparingByValue().reversed()
            .thenComparing(e -> e.getKey().toString()))
        .limit(limit)
        .forEach(e -> out.addHits(FacetHit.newBuilder().setValue(e.getKey()).setCount(e.getValue())));
    return out.build();
  }

  // ---- search ----

  private List<ScoredPoint> search(String collectionName, QueryPoints q) {
    if (!q.getCollectionName().isEmpty() && !q.getCollectionName().equals(collectionName)) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: batch queries name another collection");
    }
    TestCollection c = collection(collectionName);
    if (!q.hasQuery() || !q.getQuery().hasNearest() || !q.getQuery().getNearest().hasDense()) {
      throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer supports only nearest dense queries");
    }
    String using = q.hasUsing() ? q.getUsing() : "";
    if (!using.equals(c.vectorName)) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
          "Wrong input: Vector with name `" + using + "` is not configured in this collection");
    }
    List<Float> data = q.getQuery().getNearest().getDense().getDataList();
    checkDimension(c, data.size());
    float[] query = new float[data.size()];
    for (int i = 0; i < query.length; i++) {
      query[i] = data.get(i);
    }
    long limit = q.hasLimit() ? q.getLimit() : 10;
    long offset = q.hasOffset() ? q.getOffset() : 0;
    record Hit(StoredPoint point, float score) {}
    List<Hit> hits = new ArrayList<>();
    for (StoredPoint p : c.points.values()) {
      if (q.hasFilter() && !QdrantTestFilters.matches(q.getFilter(), p.id(), p.payload())) {
        continue;
      }
      float score = (float) cosine(query, p.vector());
      if (q.hasScoreThreshold() && score < q.getScoreThreshold()) {
        continue;
      }
      hits.add(new Hit(p, score));
    }
    hits.sort(Comparator.comparingDouble((Hit h) -> h.score()).reversed()); // stable: ties keep insertion order
    List<ScoredPoint> out = new ArrayList<>();
    hits.stream().skip(offset).limit(limit).forEach(h -> out.add(ScoredPoint.newBuilder()
        .setId(h.point().id())
        .setScore(h.score())
        .setVersion(0)
        .putAllPayload(selectPayload(h.point().payload(), q.hasWithPayload() ? q.getWithPayload() : null))
        .build()));
    return out;
  }

  /**
   * Cosine similarity, as Qdrant's Cosine distance scores (it normalises vectors on insert). Kept apart
   * from Vectors.cosine on purpose: this is the stand-in server's own scoring, which tests check against Vectors.
   */
  static double cosine(float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += (double) a[i] * b[i];
      na += (double) a[i] * a[i];
      nb += (double) b[i] * b[i];
    }
    return na == 0 || nb == 0 ? 0 : dot / (Math.sqrt(na) * Math.sqrt(nb));
  }

  private static Map<String, Value> selectPayload(Map<String, Value> payload, WithPayloadSelector selector) {
    if (selector == null) {
      return Map.of(); // Query's default: no payload
    }
    return switch (selector.getSelectorOptionsCase()) {
      case ENABLE -> selector.getEnable() ? payload : Map.of();
      case INCLUDE -> {
        Map<String, Value> out = new LinkedHashMap<>();
        selector.getInclude().getFieldsList().forEach(f -> {
          if (payload.containsKey(f)) {
            out.put(f, payload.get(f));
          }
        });
        yield out;
      }
      case EXCLUDE -> {
        Map<String, Value> out = new LinkedHashMap<>(payload);
        selector.getExclude().getFieldsList().forEach(out::remove);
        yield out;
      }
      case SELECTOROPTIONS_NOT_SET -> Map.of();
    };
  }

  // ---- helpers ----

  private TestCollection collection(String name) {
    TestCollection c = collections.get(name);
    if (c == null) {
      throw new StatusException(GrpcStatus.NOT_FOUND, "Not found: Collection `" + name + "` doesn't exist!");
    }
    return c;
  }

  @SuppressWarnings("deprecation") // the legacy Vector.data field is still what older clients send
  private static float[] vectorOf(TestCollection c, PointStruct p) {
    Vector v;
    if (p.getVectors().hasVector()) {
      if (!c.vectorName.isEmpty()) {
        throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: Not existing vector name error: ");
      }
      v = p.getVectors().getVector();
    } else if (p.getVectors().hasVectors()) {
      v = p.getVectors().getVectors().getVectorsMap().get(c.vectorName);
      if (v == null) {
        throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
            "Wrong input: Not existing vector name error: " + String.join(", ", p.getVectors().getVectors().getVectorsMap().keySet()));
      }
    } else {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: point has no vector");
    }
    List<Float> data = v.hasDense() ? v.getDense().getDataList() : v.getDataList();
    float[] out = new float[data.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = data.get(i);
    }
    return out;
  }

  private static void checkDimension(TestCollection c, int got) {
    if (got != c.dimension) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
          "Wrong input: Vector dimension error: expected dim: " + c.dimension + ", got " + got);
    }
  }

  private static void checkCosine(VectorParams params) {
    if (params.getDistance() != Distance.Cosine) {
      throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer supports only Cosine distance");
    }
  }

  private static StatusException alreadyExists(String name) {
    return new StatusException(GrpcStatus.ALREADY_EXISTS, "Wrong input: Collection `" + name + "` already exists!");
  }

  /** Qdrant accepts a UUID in any case or form and stores it canonical. */
  static PointId normalise(PointId id) {
    return switch (id.getPointIdOptionsCase()) {
      case NUM -> id;
      case UUID -> {
        try {
          yield PointId.newBuilder().setUuid(UUID.fromString(id.getUuid()).toString().toLowerCase(Locale.ROOT)).build();
        } catch (IllegalArgumentException e) {
          throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
              "Unable to parse UUID: " + id.getUuid());
        }
      }
      case POINTIDOPTIONS_NOT_SET -> throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: point id is missing");
    };
  }

  static PointId parseId(String id) {
    if (!id.isEmpty() && id.chars().allMatch(Character::isDigit)) {
      return PointId.newBuilder().setNum(Long.parseUnsignedLong(id)).build();
    }
    return normalise(PointId.newBuilder().setUuid(id).build());
  }

  static String idText(PointId id) {
    return id.hasNum() ? Long.toUnsignedString(id.getNum()) : id.getUuid();
  }

  private static String key(PointId id) {
    return (id.hasNum() ? "n:" : "u:") + idText(id);
  }

  private PointsOperationResponse completed() {
    return PointsOperationResponse.newBuilder()
        .setResult(UpdateResult.newBuilder().setOperationId(operationIds.incrementAndGet()).setStatus(UpdateStatus.Completed))
        .build();
  }

  private static FacetValue facetValue(Value v) {
    return switch (v.getKindCase()) {
      case STRING_VALUE -> FacetValue.newBuilder().setStringValue(v.getStringValue()).build();
      case INTEGER_VALUE -> FacetValue.newBuilder().setIntegerValue(v.getIntegerValue()).build();
      case BOOL_VALUE -> FacetValue.newBuilder().setBoolValue(v.getBoolValue()).build();
      default -> null;
    };
  }

  private static PayloadSchemaType schemaType(FieldType type) {
    return switch (type) {
      case FieldTypeKeyword -> PayloadSchemaType.Keyword;
      case FieldTypeInteger -> PayloadSchemaType.Integer;
      case FieldTypeFloat -> PayloadSchemaType.Float;
      case FieldTypeGeo -> PayloadSchemaType.Geo;
      case FieldTypeText -> PayloadSchemaType.Text;
      case FieldTypeBool -> PayloadSchemaType.Bool;
      case FieldTypeDatetime -> PayloadSchemaType.Datetime;
      case FieldTypeUuid -> PayloadSchemaType.Uuid;
      case UNRECOGNIZED -> PayloadSchemaType.UnknownType;
    };
  }
}
