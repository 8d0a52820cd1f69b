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
import io.qdrant.client.grpc.Collections.Modifier;
import io.qdrant.client.grpc.Collections.SparseVectorConfig;
import io.qdrant.client.grpc.Collections.SparseVectorParams;
import io.qdrant.client.grpc.Collections.ListCollectionsRequest;
import io.qdrant.client.grpc.Collections.ListCollectionsResponse;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.ScalarQuantization;
import io.qdrant.client.grpc.Points.WriteOrderingType;
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
import io.qdrant.client.grpc.Points.NamedVectorsOutput;
import io.qdrant.client.grpc.Points.PrefetchQuery;
import io.qdrant.client.grpc.Points.Query;
import io.qdrant.client.grpc.Points.DenseVector;
import io.qdrant.client.grpc.Points.SparseVector;
import io.qdrant.client.grpc.Points.VectorInput;
import io.qdrant.client.grpc.Points.VectorOutput;
import io.qdrant.client.grpc.Points.VectorsOutput;
import io.qdrant.client.grpc.Points.WithVectorsSelector;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsOperationResponse;
import io.qdrant.client.grpc.Points.QueryBatchPoints;
import io.qdrant.client.grpc.Points.QueryBatchResponse;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.QueryResponse;
import io.qdrant.client.grpc.Points.RetrievedPoint;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.Points.ScrollResponse;
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
 * brute-force cosine similarity, sparse vectors (given as indices and values, or as a
 * {@code Document} with model {@code qdrant/bm25}, inferred by {@link QdrantTestBm25}) searched by
 * dot product with the IDF modifier, and the Query API's prefetch with RRF fusion. Every method is synchronized: the server calls it from its event
 * loop, tests call it from their own thread. Errors are {@link StatusException}s with Qdrant's codes
 * and message texts.
 */
final class QdrantTestStore {

  /** One stored point; {@code key} is the normalised id ("u:" + uuid or "n:" + number). */
  /** Each stored vector's norm, computed once (by identity: an upsert stores a new array). */
  private final Map<float[], Double> norms = new java.util.WeakHashMap<>();

  record StoredPoint(PointId id, float[] vector, Map<String, Value> payload, Map<String, Map<Integer, Float>> sparse) {
    StoredPoint(PointId id, float[] vector, Map<String, Value> payload) {
      this(id, vector, payload, Map.of());
    }
  }

  /** Qdrant's default RRF k (lib/segment/src/common/reciprocal_rank_fusion.rs: DEFAULT_RRF_K). */
  static final int RRF_K = 2;

  static final class TestCollection {
    final int dimension;
    final String vectorName; // "" = one unnamed vector
    final Map<String, Modifier> sparseVectors = new TreeMap<>(); // sparse vector name -> modifier
    final Map<String, StoredPoint> points = new LinkedHashMap<>();
    final Map<String, FieldType> indexes = new TreeMap<>();
    /** How it was created: shards, replicas, write consistency, payload on disk, quantization (Qdrant's defaults when made directly). */
    CreateCollection layout = CreateCollection.getDefaultInstance();
    final Map<String, Value> metadata = new TreeMap<>();
    /** The bench's remembered rankings ({@link QdrantTestStore#rememberRankings}); any change to the points forgets them. */
    final Map<DenseQuery, Ranking> rankings = new HashMap<>();
    /**
     * IDF's counts per sparse vector name, kept because counting them took a pass over every point
     * for each of a query's terms: term -> points holding it. Any change to the points forgets them.
     */
    final Map<String, Map<Integer, Long>> documentFrequencies = new HashMap<>();
    /** Points holding each sparse vector, kept and forgotten with {@link #documentFrequencies}. */
    final Map<String, Long> sparsePoints = new HashMap<>();

    /** What is kept from the points (rankings, IDF's counts) is forgotten when they change. */
    void pointsChanged() {
      rankings.clear();
      documentFrequencies.clear();
      sparsePoints.clear();
    }

    TestCollection(int dimension, String vectorName) {
      this.dimension = dimension;
      this.vectorName = vectorName;
    }
  }

  private final List<QueryPoints> queries = new ArrayList<>();
  /** The ordering each write (Upsert, Delete, CreateFieldIndex) carried; Weak when it carried none. */
  private final List<WriteOrderingType> orderings = new ArrayList<>();
  /** Orders equal fused scores; Qdrant's sort gives them no fixed order either. */
  private final java.util.Random tieOrder = new java.util.Random();
  /** false in a long bench run: every Query holds its vector, and keeping them all runs out of memory. */
  private boolean recording = true;

  private final Map<String, TestCollection> collections = new LinkedHashMap<>();
  private final AtomicLong operationIds = new AtomicLong();

  // ---- direct access for tests ----

  synchronized void createCollection(String name, int dimension, String vectorName) {
    if (collections.containsKey(name)) {
      throw alreadyExists(name);
    }
    collections.put(name, new TestCollection(dimension, vectorName == null ? "" : vectorName));
  }

  synchronized void addSparseVector(String collection, String name, Modifier modifier) {
    collection(collection).sparseVectors.put(name, modifier);
  }

  synchronized Map<String, Modifier> sparseConfig(String collection) {
    return Map.copyOf(collection(collection).sparseVectors);
  }

  synchronized void recordQueries(boolean record) {
    this.recording = record;
  }

  /** Every Query (and each query of a QueryBatch) received, oldest first. */
  synchronized List<QueryPoints> queries() {
    return List.copyOf(queries);
  }

  synchronized Map<String, Map<Integer, Float>> sparseVectors(String collection, String id) {
    StoredPoint p = collection(collection).points.get(key(parseId(id)));
    return p == null ? null : Map.copyOf(p.sparse());
  }

  synchronized void put(String collection, PointId id, float[] vector, Map<String, Value> payload) {
    put(collection, id, vector, payload, Map.of());
  }

  synchronized void put(String collection, PointId id, float[] vector, Map<String, Value> payload,
      Map<String, Map<Integer, Float>> sparse) {
    TestCollection c = collection(collection);
    checkDimension(c, vector.length);
    for (String name : sparse.keySet()) {
      if (!c.sparseVectors.containsKey(name)) {
        throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: Not existing vector name error: " + name);
      }
    }
    PointId normal = normalise(id);
    c.points.put(key(normal), new StoredPoint(normal, vector.clone(), new LinkedHashMap<>(payload), Map.copyOf(sparse)));
    c.pointsChanged();
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

  synchronized List<WriteOrderingType> orderings() {
    return List.copyOf(orderings);
  }

  synchronized CreateCollection layout(String collection) {
    return collection(collection).layout;
  }

  // ---- Collections service ----

  /** Qdrant's own bounds (lib/api/build.rs) and its message for a value outside them. */
  private static void checkLayout(CreateCollection request) {
    List<String> problems = new ArrayList<>();
    if (request.hasShardNumber() && request.getShardNumber() < 1) {
      problems.add("shard_number: value " + request.getShardNumber() + " invalid, must be 1 or larger");
    }
    if (request.hasReplicationFactor() && request.getReplicationFactor() < 1) {
      problems.add("replication_factor: value " + request.getReplicationFactor() + " invalid, must be 1 or larger");
    }
    if (request.hasWriteConsistencyFactor() && request.getWriteConsistencyFactor() < 1) {
      problems.add("write_consistency_factor: value " + request.getWriteConsistencyFactor() + " invalid, must be 1 or larger");
    }
    if (request.hasQuantizationConfig()) {
      if (!request.getQuantizationConfig().hasScalar()) {
        throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer supports scalar quantization only");
      }
      ScalarQuantization scalar = request.getQuantizationConfig().getScalar();
      if (scalar.hasQuantile() && (scalar.getQuantile() < 0.5f || scalar.getQuantile() > 1.0f)) {
        problems.add("quantile: value " + scalar.getQuantile() + " invalid, must be from 0.5 to 1.0");
      }
    }
    if (!problems.isEmpty()) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Validation error in body: [" + String.join("; ", problems) + "]");
    }
  }

  /** Oversampling below 1 is refused (lib/api/build.rs); read consistency factor 0 too. */
  private static void checkSearchParams(QueryPoints query) {
    List<io.qdrant.client.grpc.Points.SearchParams> params = new ArrayList<>();
    if (query.hasParams()) {
      params.add(query.getParams());
    }
    query.getPrefetchList().stream().filter(PrefetchQuery::hasParams).forEach(p -> params.add(p.getParams()));
    for (io.qdrant.client.grpc.Points.SearchParams p : params) {
      if (p.hasQuantization() && p.getQuantization().hasOversampling() && p.getQuantization().getOversampling() < 1.0) {
        throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Validation error in body: [oversampling: value "
            + p.getQuantization().getOversampling() + " invalid, must be 1 or larger]");
      }
    }
    if (query.hasReadConsistency() && query.getReadConsistency().hasFactor() && query.getReadConsistency().getFactor() < 1) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: read consistency factor must be at least 1");
    }
  }

  synchronized CollectionOperationResponse create(CreateCollection request) {
    checkLayout(request);
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
    collections.get(request.getCollectionName()).metadata.putAll(request.getMetadataMap());
    if (request.hasSparseVectorsConfig()) {
      TestCollection c = collections.get(request.getCollectionName());
      request.getSparseVectorsConfig().getMapMap().forEach((name, params) ->
          c.sparseVectors.put(name, params.hasModifier() ? params.getModifier() : Modifier.None));
    }
    collections.get(request.getCollectionName()).layout = request;
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
    // as Qdrant reports a layout: the values asked for, else its defaults (1 shard, 1 replica, 1 ack)
    CreateCollection layout = c.layout;
    CollectionParams.Builder collectionParams = CollectionParams.newBuilder()
        .setShardNumber(layout.hasShardNumber() ? layout.getShardNumber() : 1)
        .setReplicationFactor(layout.hasReplicationFactor() ? layout.getReplicationFactor() : 1)
        .setWriteConsistencyFactor(layout.hasWriteConsistencyFactor() ? layout.getWriteConsistencyFactor() : 1)
        .setOnDiskPayload(layout.getOnDiskPayload())
        .setVectorsConfig(vectors);
    if (!c.sparseVectors.isEmpty()) {
      SparseVectorConfig.Builder sparse = SparseVectorConfig.newBuilder();
      c.sparseVectors.forEach((name, modifier) -> sparse.putMap(name, modifier == Modifier.None
          ? SparseVectorParams.getDefaultInstance() : SparseVectorParams.newBuilder().setModifier(modifier).build()));
      collectionParams.setSparseVectorsConfig(sparse);
    }
    CollectionInfo.Builder info = CollectionInfo.newBuilder()
        .setStatus(CollectionStatus.Green)
        .setSegmentsCount(1)
        .setPointsCount(c.points.size())
        .setIndexedVectorsCount(c.points.size())
        .setConfig((layout.hasQuantizationConfig()
            ? CollectionConfig.newBuilder().setParams(collectionParams).setQuantizationConfig(layout.getQuantizationConfig())
            : CollectionConfig.newBuilder().setParams(collectionParams)).putAllMetadata(c.metadata));
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
    orderings.add(request.getOrdering().getType());
    collection(request.getCollectionName()).indexes.put(request.getFieldName(), request.getFieldType());
    return completed();
  }

  synchronized PointsOperationResponse upsert(UpsertPoints request) {
    orderings.add(request.getOrdering().getType());
    TestCollection c = collection(request.getCollectionName());
    List<StoredPoint> accepted = new ArrayList<>();
    // check everything first: Qdrant applies a batch whole or not at all
    for (PointStruct p : request.getPointsList()) {
      float[] vector = vectorOf(c, p);
      checkDimension(c, vector.length);
      accepted.add(new StoredPoint(normalise(p.getId()), vector, new LinkedHashMap<>(p.getPayloadMap()), sparseOf(c, p)));
    }
    accepted.forEach(p -> c.points.put(key(p.id()), p));
    c.pointsChanged();
    return completed();
  }

  synchronized PointsOperationResponse deletePoints(DeletePoints request) {
    orderings.add(request.getOrdering().getType());
    TestCollection c = collection(request.getCollectionName());
    c.pointsChanged();
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

  /** SetPayload by filter: the given keys replace those of each matching point; vectors and other keys stay. */
  synchronized PointsOperationResponse setPayload(io.qdrant.client.grpc.Points.SetPayloadPoints request) {
    orderings.add(request.getOrdering().getType());
    TestCollection c = collection(request.getCollectionName());
    if (!request.hasPointsSelector() || !request.getPointsSelector().hasFilter()) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: this stand-in sets payload by filter only");
    }
    Filter filter = request.getPointsSelector().getFilter();
    c.points.replaceAll((key, p) -> {
      if (!QdrantTestFilters.matches(filter, p.id(), p.payload())) {
        return p;
      }
      Map<String, Value> payload = new LinkedHashMap<>(p.payload());
      payload.putAll(request.getPayloadMap());
      return new StoredPoint(p.id(), p.vector(), payload, p.sparse());
    });
    return completed();
  }

  synchronized CountResponse countPoints(CountPoints request) {
    TestCollection c = collection(request.getCollectionName());
    long n = c.points.values().stream()
        .filter(p -> !request.hasFilter() || QdrantTestFilters.matches(request.getFilter(), p.id(), p.payload()))
        .count();
    return CountResponse.newBuilder().setResult(CountResult.newBuilder().setCount(n)).build();
  }

  /**
   * Scroll as Qdrant answers it (lib/collection/src/collection/point_ops.rs): the filtered points in
   * id order (numeric ids before UUIDs) from {@code offset} on, {@code limit} (default 10) of them,
   * and the id of the next one as {@code next_page_offset} when there is one. Payload comes back
   * unless asked otherwise; vectors only when asked.
   */
  synchronized ScrollResponse scroll(ScrollPoints request) {
    TestCollection c = collection(request.getCollectionName());
    long limit = request.hasLimit() ? request.getLimit() : 10;
    if (limit == 0) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Bad request: Limit cannot be 0");
    }
    PointId from = request.hasOffset() ? normalise(request.getOffset()) : null;
    List<StoredPoint> page = c.points.values().stream()
        .filter(p -> !request.hasFilter() || matches(request.getFilter(), p))
        .filter(p -> from == null || ID_ORDER.compare(p.id(), from) >= 0)
        .sorted(Comparator.comparing(StoredPoint::id, ID_ORDER))
        .limit(limit + 1)
        .toList();
    WithPayloadSelector payload = request.hasWithPayload() ? request.getWithPayload()
        : WithPayloadSelector.newBuilder().setEnable(true).build();
    ScrollResponse.Builder out = ScrollResponse.newBuilder();
    for (int i = 0; i < Math.min(limit, page.size()); i++) {
      StoredPoint p = page.get(i);
      RetrievedPoint.Builder point = RetrievedPoint.newBuilder().setId(p.id())
          .putAllPayload(selectPayload(p.payload(), payload));
      if (request.hasWithVectors()) {
        vectorsOutput(c, p, request.getWithVectors()).ifPresent(point::setVectors);
      }
      out.addResult(point);
    }
    if (page.size() > limit) {
      out.setNextPageOffset(page.get((int) limit).id());
    }
    return out.build();
  }

  /** Qdrant's id order: numbers (unsigned) first, then UUIDs by their bytes, which is their canonical text order. */
  static final Comparator<PointId> ID_ORDER = (a, b) -> {
    if (a.hasNum() != b.hasNum()) {
      return a.hasNum() ? -1 : 1;
    }
    return a.hasNum() ? Long.compareUnsigned(a.getNum(), b.getNum()) : a.getUuid().compareTo(b.getUuid());
  };

  synchronized QueryResponse query(QueryPoints request) {
    checkSearchParams(request);
    if (recording) {
      queries.add(request);
    }
    return QueryResponse.newBuilder().addAllResult(search(request.getCollectionName(), request)).build();
  }

  /**
   * The legacy Search RPC (what LangChain4j's QdrantEmbeddingStore calls, the bench's peer), answered
   * as the Query it amounts to: nearest to the given dense vector.
   */
  synchronized io.qdrant.client.grpc.Points.SearchResponse searchPoints(io.qdrant.client.grpc.Points.SearchPoints request) {
    QueryPoints.Builder query = QueryPoints.newBuilder()
        .setCollectionName(request.getCollectionName())
        .setQuery(io.qdrant.client.grpc.Points.Query.newBuilder().setNearest(VectorInput.newBuilder()
            .setDense(DenseVector.newBuilder().addAllData(request.getVectorList()))))
        .setLimit(request.getLimit());
    if (request.hasFilter()) {
      query.setFilter(request.getFilter());
    }
    if (request.hasScoreThreshold()) {
      query.setScoreThreshold(request.getScoreThreshold());
    }
    if (request.hasOffset()) {
      query.setOffset(request.getOffset());
    }
    if (request.hasVectorName()) {
      query.setUsing(request.getVectorName());
    }
    if (request.hasWithPayload()) {
      query.setWithPayload(request.getWithPayload());
    }
    if (request.hasWithVectors()) {
      query.setWithVectors(request.getWithVectors());
    }
    return io.qdrant.client.grpc.Points.SearchResponse.newBuilder()
        .addAllResult(search(request.getCollectionName(), query.build())).build();
  }

  synchronized QueryBatchResponse queryBatch(QueryBatchPoints request) {
    collection(request.getCollectionName());
    QueryBatchResponse.Builder out = QueryBatchResponse.newBuilder();
    for (QueryPoints q : request.getQueryPointsList()) {
      checkSearchParams(q);
      if (recording) {
        queries.add(q);
      }
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

  /** What QueryPoints and PrefetchQuery share: a query over the prefetches' results, or over all points. */
  private record Step(List<PrefetchQuery> prefetch, Query query, String using, Filter filter, Float threshold, long limit) {
    static Step of(QueryPoints q) {
      return new Step(q.getPrefetchList(), q.hasQuery() ? q.getQuery() : null, q.hasUsing() ? q.getUsing() : "",
          q.hasFilter() ? q.getFilter() : null, q.hasScoreThreshold() ? q.getScoreThreshold() : null,
          q.hasLimit() ? q.getLimit() : 10);
    }

    static Step of(PrefetchQuery q) {
      return new Step(q.getPrefetchList(), q.hasQuery() ? q.getQuery() : null, q.hasUsing() ? q.getUsing() : "",
          q.hasFilter() ? q.getFilter() : null, q.hasScoreThreshold() ? q.getScoreThreshold() : null,
          q.hasLimit() ? q.getLimit() : 10);
    }
  }

  private record Hit(StoredPoint point, float score) {}

  private List<ScoredPoint> search(String collectionName, QueryPoints q) {
    if (!q.getCollectionName().isEmpty() && !q.getCollectionName().equals(collectionName)) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: batch queries name another collection");
    }
    TestCollection c = collection(collectionName);
    long offset = q.hasOffset() ? q.getOffset() : 0;
    Step step = Step.of(q);
    List<Hit> hits = run(c, step, step.limit() + offset, null);
    List<ScoredPoint> out = new ArrayList<>();
    hits.stream().skip(offset).limit(step.limit()).forEach(h -> {
      ScoredPoint.Builder point = ScoredPoint.newBuilder()
          .setId(h.point().id())
          .setScore(h.score())
          .setVersion(0)
          .putAllPayload(selectPayload(h.point().payload(), q.hasWithPayload() ? q.getWithPayload() : null));
      if (q.hasWithVectors()) {
        vectorsOutput(c, h.point(), q.getWithVectors()).ifPresent(point::setVectors);
      }
      out.add(point.build());
    });
    return out;
  }

  /**
   * One level of the Query API. With prefetches, the query runs over their results (a fusion
   * fuses them; a nearest query rescores their union); an outer filter applies to the prefetches
   * too, as Qdrant merges it into them. Without, the query runs over every point.
   */
  private List<Hit> run(TestCollection c, Step step, long limit, Filter outer) {
    Filter filter = step.filter() != null ? step.filter() : outer;
    if (!step.prefetch().isEmpty()) {
      List<List<Hit>> lists = new ArrayList<>();
      for (PrefetchQuery prefetch : step.prefetch()) {
        Step inner = Step.of(prefetch);
        List<Hit> found = run(c, inner, inner.limit(), filter);
        if (filter != null && inner.filter() != null) {
          found = found.stream().filter(h -> matches(filter, h.point())).toList();
        }
        lists.add(found);
      }
      if (step.query() == null) {
        throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer needs a query beside prefetches");
      }
      List<Hit> fused = switch (step.query().getVariantCase()) {
        case FUSION -> {
          if (step.query().getFusion() != io.qdrant.client.grpc.Points.Fusion.RRF) {
            throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer fuses by RRF only");
          }
          yield rrf(lists, RRF_K, List.of());
        }
        case RRF -> {
          io.qdrant.client.grpc.Points.Rrf rrf = step.query().getRrf();
          if (rrf.hasK() && rrf.getK() < 1) {
            throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Validation error in body: [query.rrf.k: value 0 invalid, must be 1 or larger]");
          }
          List<Float> weights = rrf.getWeightsList();
          if (!weights.isEmpty() && weights.size() != lists.size()) {
            throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: Number of weights in RRF should match"
                + " number of pre-fetches: got " + weights.size() + ", expected " + lists.size());
          }
          yield rrf(lists, rrf.hasK() ? rrf.getK() : RRF_K, weights);
        }
        case NEAREST -> {
          Map<String, StoredPoint> union = new LinkedHashMap<>();
          lists.forEach(list -> list.forEach(h -> union.put(key(h.point().id()), h.point())));
          yield nearest(c, step, union.values(), null);
        }
        default -> throw new StatusException(GrpcStatus.UNIMPLEMENTED,
            "QdrantTestServer supports fusion and nearest queries over prefetches");
      };
      return fused.stream()
          .filter(h -> step.threshold() == null || h.score() >= step.threshold())
          .limit(limit)
          .toList();
    }
    if (step.query() == null || !step.query().hasNearest()) {
      throw new StatusException(GrpcStatus.UNIMPLEMENTED, "QdrantTestServer supports only nearest queries without prefetch");
    }
    return nearest(c, step, c.points.values(), filter).stream().limit(limit).toList();
  }

  /**
   * Reciprocal rank fusion as Qdrant computes it (reciprocal_rank_fusion.rs): a list's hit at
   * position p (from 0) adds {@code 1 / ((p + 1) / weight + k - 1)} in f32, 0 for a weight &lt;= 0;
   * no weights = weight 1 each. Sorted by fused score only: like Qdrant's unstable sort, ties come
   * back in no order a client may rely on (here: shuffled).
   */
  private List<Hit> rrf(List<List<Hit>> lists, int k, List<Float> weights) {
    Map<String, Hit> fused = new LinkedHashMap<>();
    for (int l = 0; l < lists.size(); l++) {
      List<Hit> list = lists.get(l);
      float weight = weights.isEmpty() ? 1f : weights.get(l);
      for (int position = 0; position < list.size(); position++) {
        Hit h = list.get(position);
        float score = weight <= 0f ? 0f : 1f / ((float) (position + 1) / weight + (float) k - 1f);
        fused.merge(key(h.point().id()), new Hit(h.point(), score), (a, b) -> new Hit(a.point(), a.score() + b.score()));
      }
    }
    List<Hit> out = new ArrayList<>(fused.values());
    java.util.Collections.shuffle(out, tieOrder);
    out.sort(Comparator.comparingDouble((Hit h) -> h.score()).reversed());
    return out;
  }

  private List<Hit> nearest(TestCollection c, Step step, java.util.Collection<StoredPoint> candidates, Filter filter) {
    VectorInput input = step.query().getNearest();
    String using = step.using();
    boolean sparseName = c.sparseVectors.containsKey(using);
    if (!sparseName && !using.equals(c.vectorName)) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: Not existing vector name error: " + using);
    }
    List<Hit> hits = new ArrayList<>();
    switch (input.getVariantCase()) {
      case DENSE -> {
        if (sparseName) {
          throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
              "Wrong input: Conversion between sparse and regular vectors failed");
        }
        float[] query = floats(input.getDense().getDataList());
        checkDimension(c, query.length);
        if (rememberRankings && filter == null && candidates == c.points.values()) {
          return remembered(c, query).above(step.threshold());
        }
        double queryNorm = norm(query);
        for (StoredPoint p : candidates) {
          if (filter == null || matches(filter, p)) {
            hits.add(new Hit(p, (float) cosine(query, queryNorm, p.vector(), norms.computeIfAbsent(p.vector(), QdrantTestStore::norm))));
          }
        }
      }
      case SPARSE, DOCUMENT -> {
        if (!sparseName) {
          throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
              "Wrong input: Conversion between sparse and regular vectors failed");
        }
        Map<Integer, Float> query = input.hasSparse() ? sparse(input.getSparse()) : inferSparse(input.getDocument());
        if (c.sparseVectors.get(using) == Modifier.Idf) {
          query = withIdf(c, using, query);
        }
        for (StoredPoint p : candidates) {
          Map<Integer, Float> doc = p.sparse().get(using);
          if (doc == null || (filter != null && !matches(filter, p))) {
            continue;
          }
          float score = 0;
          boolean shared = false;
          for (Map.Entry<Integer, Float> term : query.entrySet()) {
            Float weight = doc.get(term.getKey());
            if (weight != null) {
              shared = true;
              score += term.getValue() * weight;
            }
          }
          if (shared) { // a sparse search finds only points sharing a term (an inverted index)
            hits.add(new Hit(p, score));
          }
        }
      }
      default -> throw new StatusException(GrpcStatus.UNIMPLEMENTED,
          "QdrantTestServer supports nearest dense, sparse and document queries");
    }
    if (step.threshold() != null) {
      hits.removeIf(h -> h.score() < step.threshold());
    }
    hits.sort(Comparator.comparingDouble((Hit h) -> h.score()).reversed()); // stable: ties keep insertion order
    return hits;
  }

  // ---- the bench's remembered rankings ----

  /** A dense query vector by value (a float[] is equal only to itself). */
  private record DenseQuery(float[] vector) {
    @Override
    public boolean equals(Object other) {
      return other instanceof DenseQuery q && java.util.Arrays.equals(vector, q.vector);
    }

    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(vector);
    }
  }

  /** Every point of a collection by descending cosine to one query vector, ties in insertion order (as nearest sorts them). */
  private record Ranking(StoredPoint[] points, float[] scores) {
    /** The hits scoring at least {@code threshold} (all when null), as a list that makes each Hit when read. */
    List<Hit> above(Float threshold) {
      int size = scores.length;
      if (threshold != null) {
        size = 0;
        while (size < scores.length && scores[size] >= threshold) {
          size++;
        }
      }
      int n = size;
      return new java.util.AbstractList<>() {
        @Override
        public Hit get(int i) {
          java.util.Objects.checkIndex(i, n);
          return new Hit(points[i], scores[i]);
        }

        @Override
        public int size() {
          return n;
        }
      };
    }
  }

  /** Beyond this many remembered vectors a collection ranks the others afresh each time (bounded memory). */
  private static final int MAX_RANKINGS = 20_000;

  private boolean rememberRankings;

  /**
   * For the bench only: from now on an unfiltered dense nearest query over a whole collection is
   * answered from the ranking its vector got the first time, so the stand-in costs a look-up
   * instead of a brute-force pass over thousands of points. The answers are the ones computed
   * afresh (same scores, same order); a write to the points forgets the rankings. {@code vectors}
   * are ranked now, on every core, so a run does not pay for them on the server's event loop.
   */
  synchronized void rememberRankings(String collection, List<float[]> vectors) {
    rememberRankings = true;
    TestCollection c = collection(collection);
    StoredPoint[] points = c.points.values().toArray(StoredPoint[]::new);
    double[] pointNorms = new double[points.length];
    for (int i = 0; i < points.length; i++) {
      pointNorms[i] = norms.computeIfAbsent(points[i].vector(), QdrantTestStore::norm);
    }
    List<Ranking> ranked = vectors.parallelStream().map(v -> rank(v, points, pointNorms)).toList();
    for (int i = 0; i < vectors.size() && c.rankings.size() < MAX_RANKINGS; i++) {
      c.rankings.put(new DenseQuery(vectors.get(i).clone()), ranked.get(i));
    }
  }

  private Ranking remembered(TestCollection c, float[] query) {
    DenseQuery key = new DenseQuery(query);
    Ranking known = c.rankings.get(key);
    if (known != null) {
      return known;
    }
    StoredPoint[] points = c.points.values().toArray(StoredPoint[]::new);
    double[] pointNorms = new double[points.length];
    for (int i = 0; i < points.length; i++) {
      pointNorms[i] = norms.computeIfAbsent(points[i].vector(), QdrantTestStore::norm);
    }
    Ranking ranking = rank(query, points, pointNorms);
    if (c.rankings.size() < MAX_RANKINGS) {
      c.rankings.put(key, ranking);
    }
    return ranking;
  }

  /** The same scores and order as {@link #nearest}'s dense case without filter or threshold. */
  private static Ranking rank(float[] query, StoredPoint[] points, double[] pointNorms) {
    double queryNorm = norm(query);
    List<Hit> hits = new ArrayList<>(points.length);
    for (int i = 0; i < points.length; i++) {
      hits.add(new Hit(points[i], (float) cosine(query, queryNorm, points[i].vector(), pointNorms[i])));
    }
    hits.sort(Comparator.comparingDouble((Hit h) -> h.score()).reversed());
    StoredPoint[] order = new StoredPoint[hits.size()];
    float[] scores = new float[hits.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = hits.get(i).point();
      scores[i] = hits.get(i).score();
    }
    return new Ranking(order, scores);
  }

  /**
   * The IDF modifier: each query weight times ln((N - n + 0.5) / (n + 0.5) + 1), N the points with
   * this sparse vector, n those holding the term (the formula of Qdrant's indexing docs).
   */
  private static Map<Integer, Float> withIdf(TestCollection c, String using, Map<Integer, Float> query) {
    Map<Integer, Long> counts = c.documentFrequencies.computeIfAbsent(using, name -> new HashMap<>());
    long total = c.sparsePoints.computeIfAbsent(using,
        name -> c.points.values().stream().filter(p -> p.sparse().containsKey(name)).count());
    Map<Integer, Float> out = new TreeMap<>();
    query.forEach((term, weight) -> {
      long n = counts.computeIfAbsent(term, t -> c.points.values().stream()
          .filter(p -> p.sparse().getOrDefault(using, Map.of()).containsKey(t))
          .count());
      out.put(term, (float) (weight * Math.log((total - n + 0.5) / (n + 0.5) + 1)));
    });
    return out;
  }

  private static boolean matches(Filter filter, StoredPoint p) {
    return QdrantTestFilters.matches(filter, p.id(), p.payload());
  }

  private static Map<Integer, Float> sparse(SparseVector v) {
    if (v.getIndicesCount() != v.getValuesCount()) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
          "Wrong input: Sparse vector indices and values must have the same length");
    }
    Map<Integer, Float> out = new TreeMap<>();
    for (int i = 0; i < v.getIndicesCount(); i++) {
      out.put(v.getIndices(i), v.getValues(i));
    }
    return out;
  }

  private static Map<Integer, Float> inferSparse(io.qdrant.client.grpc.Points.Document document) {
    if (!"qdrant/bm25".equalsIgnoreCase(document.getModel())) {
      throw new StatusException(GrpcStatus.UNIMPLEMENTED,
          "QdrantTestServer infers only model qdrant/bm25, not " + document.getModel());
    }
    return QdrantTestBm25.query(document.getText(), bm25Config(document));
  }

  /** with_vectors: the unnamed vector alone comes back as a single vector, anything else by name. */
  private static java.util.Optional<VectorsOutput> vectorsOutput(TestCollection c, StoredPoint p, WithVectorsSelector selector) {
    Set<String> names = new LinkedHashSet<>();
    switch (selector.getSelectorOptionsCase()) {
      case ENABLE -> {
        if (!selector.getEnable()) {
          return java.util.Optional.empty();
        }
        names.add(c.vectorName);
        names.addAll(p.sparse().keySet());
      }
      case INCLUDE -> names.addAll(selector.getInclude().getNamesList());
      case SELECTOROPTIONS_NOT_SET -> {
        return java.util.Optional.empty();
      }
    }
    DenseVector.Builder dense = DenseVector.newBuilder();
    for (float v : p.vector()) {
      dense.addData(v);
    }
    VectorOutput denseOut = VectorOutput.newBuilder().setDense(dense).build();
    if (names.size() == 1 && names.contains("") && c.vectorName.isEmpty()) {
      return java.util.Optional.of(VectorsOutput.newBuilder().setVector(denseOut).build());
    }
    NamedVectorsOutput.Builder named = NamedVectorsOutput.newBuilder();
    for (String name : names) {
      if (name.equals(c.vectorName)) {
        named.putVectors(name, denseOut);
      } else if (p.sparse().containsKey(name)) {
        SparseVector.Builder sparse = SparseVector.newBuilder();
        p.sparse().get(name).forEach((i, v) -> sparse.addIndices(i).addValues(v));
        named.putVectors(name, VectorOutput.newBuilder().setSparse(sparse).build());
      }
    }
    return java.util.Optional.of(VectorsOutput.newBuilder().setVectors(named).build());
  }

  private static float[] floats(List<Float> data) {
    float[] out = new float[data.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = data.get(i);
    }
    return out;
  }

  /**
   * Cosine similarity, as Qdrant's Cosine distance scores (it normalises vectors on insert). Kept apart
   * from Vectors.cosine on purpose: this is the stand-in server's own scoring, which tests check against Vectors.
   */
  static double cosine(float[] a, float[] b) {
    return cosine(a, norm(a), b, norm(b));
  }

  /** The cosine with both norms known ({@link #norm}); the same value as {@link #cosine(float[], float[])}. */
  static double cosine(float[] a, double normA, float[] b, double normB) {
    return normA == 0 || normB == 0 ? 0 : dot(a, b) / (normA * normB);
  }

  static double norm(float[] a) {
    return Math.sqrt(dot(a, a));
  }

  /**
   * Four partial sums: independent additions keep the CPU busy, so a brute-force search over a
   * few thousand 1024-dimension points stays fast enough for the bench.
   */
  private static double dot(float[] a, float[] b) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 3 < a.length; i += 4) {
      s0 += (double) a[i] * b[i];
      s1 += (double) a[i + 1] * b[i + 1];
      s2 += (double) a[i + 2] * b[i + 2];
      s3 += (double) a[i + 3] * b[i + 3];
    }
    for (; i < a.length; i++) {
      s0 += (double) a[i] * b[i];
    }
    return (s0 + s1) + (s2 + s3);
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
      Map<String, Vector> named = p.getVectors().getVectors().getVectorsMap();
      for (String name : named.keySet()) {
        if (!name.equals(c.vectorName) && !c.sparseVectors.containsKey(name)) {
          throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: Not existing vector name error: " + name);
        }
      }
      v = named.get(c.vectorName);
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

  /** The sparse vectors of a point: indices and values, or a BM25 document inferred as Qdrant does. */
  private static Map<String, Map<Integer, Float>> sparseOf(TestCollection c, PointStruct p) {
    if (!p.getVectors().hasVectors()) {
      return Map.of();
    }
    Map<String, Map<Integer, Float>> out = new TreeMap<>();
    p.getVectors().getVectors().getVectorsMap().forEach((name, v) -> {
      if (!c.sparseVectors.containsKey(name)) {
        return;
      }
      switch (v.getVectorCase()) {
        case SPARSE -> out.put(name, sparse(v.getSparse()));
        case DOCUMENT -> {
          if (!"qdrant/bm25".equalsIgnoreCase(v.getDocument().getModel())) {
            throw new StatusException(GrpcStatus.UNIMPLEMENTED,
                "QdrantTestServer infers only model qdrant/bm25, not " + v.getDocument().getModel());
          }
          out.put(name, QdrantTestBm25.document(v.getDocument().getText(), bm25Config(v.getDocument())));
        }
        default -> throw new StatusException(GrpcStatus.INVALID_ARGUMENT,
            "Wrong input: Conversion between sparse and regular vectors failed");
      }
    });
    return out;
  }

  /** The Document's BM25 options, refused as Qdrant refuses them (an unknown language: UNIMPLEMENTED here). */
  private static QdrantTestBm25.Config bm25Config(io.qdrant.client.grpc.Points.Document document) {
    try {
      return QdrantTestBm25.Config.of(document.getOptionsMap());
    } catch (IllegalArgumentException e) {
      throw new StatusException(GrpcStatus.INVALID_ARGUMENT, "Wrong input: " + e.getMessage());
    } catch (IllegalStateException e) {
      throw new StatusException(GrpcStatus.UNIMPLEMENTED, e.getMessage());
    }
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
