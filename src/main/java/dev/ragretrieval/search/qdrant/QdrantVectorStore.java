package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Coalescer;
import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.search.CollectionInfo;
import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.search.KeywordAnalysis;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.SearchRequest;
import dev.ragretrieval.search.StoredChunk;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.upstream.Retry;
import dev.ragretrieval.upstream.Upstream;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.UnsafeByteOperations;
import io.qdrant.client.grpc.Collections.CollectionDescription;
import io.qdrant.client.grpc.Collections.CollectionOperationResponse;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.DeleteCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.GetCollectionInfoRequest;
import io.qdrant.client.grpc.Collections.Modifier;
import io.qdrant.client.grpc.Collections.SparseVectorConfig;
import io.qdrant.client.grpc.Collections.SparseVectorParams;
import io.qdrant.client.grpc.Collections.ListCollectionsRequest;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.Points.BatchResult;
import io.qdrant.client.grpc.Points.CountPoints;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.DenseVector;
import io.qdrant.client.grpc.Points.Document;
import io.qdrant.client.grpc.Points.FacetCounts;
import io.qdrant.client.grpc.Points.FacetHit;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.Points.Rrf;
import io.qdrant.client.grpc.Points.NamedVectors;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PayloadIncludeSelector;
import io.qdrant.client.grpc.Points.PointsSelector;
import io.qdrant.client.grpc.Points.PrefetchQuery;
import io.qdrant.client.grpc.Points.Query;
import io.qdrant.client.grpc.Points.QueryBatchPoints;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.RetrievedPoint;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.Points.SetPayloadPoints;
import io.qdrant.client.grpc.Points.UpsertPoints;
import io.qdrant.client.grpc.Points.Vector;
import io.qdrant.client.grpc.Points.VectorInput;
import io.qdrant.client.grpc.Points.VectorOutput;
import io.qdrant.client.grpc.Points.Vectors;
import io.qdrant.client.grpc.Points.VectorsOutput;
import io.qdrant.client.grpc.Points.VectorsSelector;
import io.qdrant.client.grpc.Points.WithVectorsSelector;
import io.qdrant.client.grpc.Points.WithPayloadSelector;
import io.qdrant.client.grpc.VxCollectionsGrpcClient;
import io.qdrant.client.grpc.VxPointsGrpcClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The vector store on a Qdrant server, over gRPC. Calls carry the api key and a deadline; a rate
 * limit or an unreachable server is retried within the request's deadline. Collections with
 * named vectors work too: the vector name ("default", else the first) is looked up once per
 * collection and sent with every search and upsert.
 *
 * <p>Hybrid search: collections this store creates also hold a sparse vector {@value #SPARSE}
 * with the IDF modifier, which Qdrant (1.15+) fills itself from a {@code Document} with model
 * {@value #BM25_MODEL} (its server-side BM25), with the options of {@link KeywordAnalysis} and the
 * average keyword length the collection was created with (its metadata {@value #AVG_LEN_KEY}); a
 * collection without that metadata was written with Qdrant's default options, and keeps getting
 * them. A hybrid search is one Query API query: a dense and a sparse prefetch, both filtered, fused
 * by {@code Rrf {k, weights}} from the request's {@link Fusion}. Qdrant orders equal fused scores
 * arbitrarily, so the page is sorted again here by {@link Fusion#ORDER} (fused score, cosine, id)
 * before it is cut; see {@link #hybridQuery}. Each hit's score is its cosine with the query, read
 * from the dense prefetch asked on its own in the same QueryBatch ({@link #denseCandidates}), and
 * the score threshold applies to that cosine. Should a hit be missing from that list, the page is
 * asked again with the hits' dense vectors and the cosines computed here (Cosine collections store
 * vectors normalised). A collection without the sparse vector is searched dense.
 */
public final class QdrantVectorStore implements VectorStore {

  private static final String STORE = "qdrant";
  /** The sparse vector name hybrid collections carry. */
  public static final String SPARSE = "bm25";
  /** Qdrant's server-side BM25 inference. */
  public static final String BM25_MODEL = "qdrant/bm25";
  /** Collection metadata: the average keyword text length in tokens, sent as BM25's avg_len. */
  public static final String AVG_LEN_KEY = "rag_bm25_avg_len";
  /** Points per Scroll call when reading stored chunks back (payload only, a few small fields each). */
  private static final int SCROLL_PAGE = 1000;

  private final QdrantChannel channel;
  private final QdrantEndpoints endpoints;
  /** Layout of new collections, write ordering, read consistency and quantization search params. */
  private final QdrantConsistency consistency;
  private final Upstream upstream;
  /** collection -> vector name ("" = the single unnamed vector) */
  private final Map<String, String> vectorNames = new ConcurrentHashMap<>();
  /** collection -> whether it has the {@value #SPARSE} sparse vector (filled with vectorNames) */
  private final Map<String, Boolean> sparseVectors = new ConcurrentHashMap<>();
  /** collection -> its BM25 document options (empty: Qdrant's defaults; filled with vectorNames) */
  private final Map<String, Map<String, io.qdrant.client.grpc.JsonWithInt.Value>> bm25Options = new ConcurrentHashMap<>();
  private final Coalescer<SearchRequest, List<ScoredPoint>> searches;

  /** Uses {@link #retryPolicy} and Vert.x's resolver; only one turn's searches share a call. */
  public QdrantVectorStore(Vertx vertx, AppConfig.Qdrant config, RagMetrics metrics) {
    this(vertx, config, metrics, Duration.ZERO);
  }

  /** As above; under load a search waits up to {@code coalesceWindow} to share a call (RAG_COALESCE_WINDOW_MS). */
  public QdrantVectorStore(Vertx vertx, AppConfig.Qdrant config, RagMetrics metrics, Duration coalesceWindow) {
    this(vertx, config, retryPolicy(config), HostResolver.of(vertx), metrics, coalesceWindow);
  }

  /** {@code resolver} finds every address of {@code config.host()}; calls rotate over them. */
  public QdrantVectorStore(Vertx vertx, AppConfig.Qdrant config, Retry.Policy policy, HostResolver resolver,
      RagMetrics metrics) {
    this(vertx, config, policy, resolver, metrics, Duration.ZERO);
  }

  private QdrantVectorStore(Vertx vertx, AppConfig.Qdrant config, Retry.Policy policy, HostResolver resolver,
      RagMetrics metrics, Duration coalesceWindow) {
    this.searches = new Coalescer<>(this::searchAlone, this::searchBatch, Coalescer::permanentRefusal, coalesceWindow);
    String host = config.host().orElseThrow(() -> new IllegalArgumentException("Qdrant host is not configured"));
    this.endpoints = new QdrantEndpoints(vertx, host, config.grpcPort(), config.tls(), resolver,
        config.failover().resolveInterval(), config.failover().probeInterval());
    this.consistency = new QdrantConsistency(config);
    this.channel = new QdrantChannel(vertx, endpoints, config.apiKey(), config.tls(), config.caCert(),
        config.timeout(), config.failover().hedgeAfter(), () -> metrics.hedged(STORE));
    // only a rate limit or an unreachable server is worth the same call again
    this.upstream = new Upstream(vertx, metrics, Upstream.Kind.VECTOR_STORE, STORE, "Qdrant", policy,
        config.circuit(), config.timeout(),
        e -> e.code() == ErrorCode.RATE_LIMIT || e.code() == ErrorCode.CONNECTION_ERROR);
  }

  /** Each address of the host and whether calls go to it (tests). */
  Map<SocketAddress, Boolean> addresses() {
    return endpoints.health();
  }

  /** qdrant.max_attempts attempts in all, waiting 100 ms, 200 ms, ... up to 2 s between them. */
  public static Retry.Policy retryPolicy(AppConfig.Qdrant config) {
    return new Retry.Policy(config.maxAttempts(), Duration.ofMillis(100), Duration.ofSeconds(2));
  }

  /** One turn of an event loop's searches go to Qdrant as one QueryBatch (see {@link Coalescer}). */
  @Override
  public Future<List<ScoredPoint>> search(SearchRequest request) {
    return searches.call(request);
  }

  private Future<List<ScoredPoint>> searchAlone(SearchRequest request) {
    Deadline deadline = request.deadline();
    return vectorName(request.collection(), "search", deadline)
        .compose(using -> {
          if (hybridFor(request)) {
            // the fused page and its dense list: two queries, so one QueryBatch
            return batch(List.of(request), "search").map(results -> results.get(0));
          }
          return upstream.call("search", deadline, budget -> channel.call(VxPointsGrpcClient.Query,
                  consistency.tuned(query(request, using)), budget, request.collection()))
              .map(response -> QdrantPayloads.scored(response.getResultList()));
        });
  }

  /**
   * A hybrid page whose cut was not stable (see {@link Page#settled}) is asked again for every
   * candidate: that answer holds all of them, so its cut is. Their cosines are still those of the
   * dense list ({@code cosines}), which holds every candidate. Only a page with a hit missing from
   * that list (null) is asked with the hits' dense vectors, and the cosines computed from them.
   */
  private Future<List<ScoredPoint>> settled(SearchRequest request, String using, Page page,
      Map<String, Float> cosines) {
    if (page != null && page.settled()) {
      return Future.succeededFuture(page.hits());
    }
    int all = 2 * request.fusion().candidatesFor(request.limit());
    boolean withVectors = page == null;
    return upstream.call("search", request.deadline(), budget -> channel.call(VxPointsGrpcClient.Query,
            consistency.tuned(hybridQuery(request, using, all, withVectors)), budget, request.collection()))
        .compose(response -> withVectors
            ? Future.succeededFuture(fused(response.getResultList(), request, all,
                (id, hit) -> cosine(request.vector(), storedVector(hit, using))).hits())
            : settled(request, using, fused(response.getResultList(), request, all, (id, hit) -> cosines.get(id)),
                cosines));
  }

  @Override
  public Future<List<List<ScoredPoint>>> searchBatch(List<SearchRequest> requests) {
    return batch(requests, "search_batch");
  }

  /**
   * {@code requests} in one QueryBatch per collection. A hybrid request asks two queries: its
   * fused page (payloads, no vectors) and its dense prefetch on its own (ids and cosines only). Every
   * fused hit is one of those dense candidates (the BM25 prefetch ranks only them), so its score is
   * read from that list instead of being computed from a 1,024-float vector sent back with each of
   * the page's hits.
   */
  private Future<List<List<ScoredPoint>>> batch(List<SearchRequest> requests, String operation) {
    if (requests.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    // the latest: searches of several requests share this call (Coalescer), and an older one's nearer
    // deadline must not cut the others short; each request still times out on its own at the edge
    Deadline deadline = requests.stream().map(SearchRequest::deadline).reduce(Deadline::max).orElseThrow();
    // QueryBatch works on one collection: one call per collection named, answers put back in order
    Map<String, List<Integer>> byCollection = new LinkedHashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      byCollection.computeIfAbsent(requests.get(i).collection(), c -> new ArrayList<>()).add(i);
    }
    @SuppressWarnings("unchecked")
    List<ScoredPoint>[] results = new List[requests.size()];
    List<Future<Void>> calls = new ArrayList<>();
    byCollection.forEach((collection, indexes) -> calls.add(vectorName(collection, operation, deadline).compose(using -> {
      // decided once: the answer is read with the same split the batch was built with
      boolean[] hybrid = new boolean[indexes.size()];
      QueryBatchPoints.Builder batch = QueryBatchPoints.newBuilder().setCollectionName(collection);
      consistency.readConsistency().ifPresent(batch::setReadConsistency);
      for (int k = 0; k < indexes.size(); k++) {
        SearchRequest request = requests.get(indexes.get(k));
        hybrid[k] = hybridFor(request);
        if (hybrid[k]) {
          batch.addQueryPoints(consistency.tuned(hybridQuery(request, using, hybridLimit(request), false)));
          batch.addQueryPoints(consistency.tuned(denseCandidates(request, using)));
        } else {
          batch.addQueryPoints(consistency.tuned(query(request, using)));
        }
      }
      QueryBatchPoints message = batch.build();
      return upstream.call(operation, deadline,
              budget -> channel.call(VxPointsGrpcClient.QueryBatch, message, budget, collection))
          .compose(response -> {
            if (response.getResultCount() != message.getQueryPointsCount()) {
              return Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR, "Qdrant answered "
                  + response.getResultCount() + " results for " + message.getQueryPointsCount() + " queries"));
            }
            List<BatchResult> answers = response.getResultList();
            List<Future<Void>> settling = new ArrayList<>();
            int at = 0;
            for (int k = 0; k < indexes.size(); k++) {
              int slot = indexes.get(k);
              SearchRequest request = requests.get(slot);
              List<io.qdrant.client.grpc.Points.ScoredPoint> points = answers.get(at++).getResultList();
              if (hybrid[k]) {
                Map<String, Float> cosines = cosines(answers.get(at++).getResultList());
                Page page = fused(points, request, hybridLimit(request), (id, hit) -> cosines.get(id));
                settling.add(settled(request, using, page, cosines).map(hits -> {
                  results[slot] = hits;
                  return null;
                }));
              } else {
                results[slot] = QdrantPayloads.scored(points);
              }
            }
            return Future.all(settling).<Void>mapEmpty();
          });
    })));
    return Future.all(calls).map(done -> List.copyOf(Arrays.asList(results)));
  }

  @Override
  public Future<CollectionInfo> collectionInfo(String collection, Deadline deadline) {
    return describe(collection, "collection_info", deadline)
            .compose(info -> {
              VectorsConfig vectors = info.getConfig().getParams().getVectorsConfig();
              int size = (int) vectorSize(vectors, vectorName(vectors));
              boolean hybrid = hasSparse(info);
              if (info.hasPointsCount()) {
                return Future.succeededFuture(new CollectionInfo(collection, size, info.getPointsCount(), hybrid));
              }
              CountPoints count = CountPoints.newBuilder().setCollectionName(collection).setExact(true).build();
              return upstream.call("collection_info", deadline,
                      budget -> channel.call(VxPointsGrpcClient.Count, count, budget, collection))
                  .map(counted -> new CollectionInfo(collection, size, counted.getResult().getCount(), hybrid));
            });
  }

  @Override
  public Future<Boolean> hybrid(String collection, Deadline deadline) {
    Boolean known = sparseVectors.get(collection);
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return describe(collection, "collection_info", deadline).map(QdrantVectorStore::hasSparse);
  }

  @Override
  public Future<List<CollectionInfo>> collections(Deadline deadline) {
    return upstream.call("list_collections", deadline, budget -> channel.call(VxCollectionsGrpcClient.List,
            ListCollectionsRequest.getDefaultInstance(), budget, null))
            .compose(listed -> {
              List<Future<CollectionInfo>> infos = listed.getCollectionsList().stream()
                  .map(CollectionDescription::getName)
                  .sorted()
                  // one deleted between the list and its info is simply no longer listed
                  .map(name -> collectionInfo(name, deadline).recover(failure ->
                      failure instanceof ServiceException e && e.code() == ErrorCode.COLLECTION_NOT_FOUND
                          ? Future.succeededFuture(null) : Future.failedFuture(failure)))
                  .toList();
              return Future.all(infos).map(done -> infos.stream()
                  .map(Future::result).filter(java.util.Objects::nonNull).toList());
            });
  }

  @Override
  public Future<Void> createCollection(String collection, int vectorSize, List<String> indexedKeys,
      Deadline deadline) {
    return createCollection(collection, vectorSize, indexedKeys, 0, deadline);
  }

  /**
   * Records {@code keywordAvgLen} (Qdrant's default when 0: nothing measured) in the collection's
   * metadata: every point's BM25 weights are computed with it, now and in later ingests, so all
   * points of the collection are weighed alike.
   */
  @Override
  public Future<Void> createCollection(String collection, int vectorSize, List<String> indexedKeys,
      double keywordAvgLen, Deadline deadline) {
    vectorNames.remove(collection);
    sparseVectors.remove(collection);
    bm25Options.remove(collection);
    double avgLen = keywordAvgLen > 0 ? keywordAvgLen : KeywordAnalysis.QDRANT_DEFAULT_AVG_LEN;
    return createWithIndexes(collection, vectorSize, indexedKeys, avgLen, deadline);
  }

  private Future<Void> createWithIndexes(String collection, int vectorSize, List<String> indexedKeys,
      double avgLen, Deadline deadline) {
    CreateCollection.Builder create = CreateCollection.newBuilder()
        .setCollectionName(collection)
        .setVectorsConfig(VectorsConfig.newBuilder()
            .setParams(VectorParams.newBuilder().setSize(vectorSize).setDistance(Distance.Cosine)))
        // BM25 term weights come from the documents; the IDF part is Qdrant's at query time
        .setSparseVectorsConfig(SparseVectorConfig.newBuilder()
            .putMap(SPARSE, SparseVectorParams.newBuilder().setModifier(Modifier.Idf).build()))
        .putMetadata(AVG_LEN_KEY, QdrantPayloads.toValue(avgLen));
    CreateCollection laidOut = consistency.laidOut(create);
    return upstream.call("create_collection", deadline,
            budget -> channel.call(VxCollectionsGrpcClient.Create, laidOut, budget, collection))
        .compose(QdrantVectorStore::acknowledged)
        // the payload indexes are independent: asked for at once, the first ingest's writes wait
        // for the slowest of them instead of their sum
        .compose(created -> Future.all(indexedKeys.stream().map(key -> createIndex(collection, key, deadline)).toList()))
        .mapEmpty();
  }

  private Future<?> createIndex(String collection, String key, Deadline deadline) {
    CreateFieldIndexCollection index = CreateFieldIndexCollection.newBuilder()
        .setCollectionName(collection)
        .setFieldName(key)
        .setFieldType(FieldType.FieldTypeKeyword)
        .setWait(true)
        .setOrdering(consistency.ordering())
        .build();
    return upstream.call("create_collection", deadline,
        budget -> channel.call(VxPointsGrpcClient.CreateFieldIndex, index, budget, collection));
  }

  @Override
  public Future<Void> deleteCollection(String collection, Deadline deadline) {
    vectorNames.remove(collection);
    sparseVectors.remove(collection);
    bm25Options.remove(collection);
    DeleteCollection delete = DeleteCollection.newBuilder().setCollectionName(collection).build();
    return upstream.call("delete_collection", deadline,
            budget -> channel.call(VxCollectionsGrpcClient.Delete, delete, budget, collection))
            .<Void>mapEmpty()
            // deleting what is not there is done already
            .recover(failure -> failure instanceof ServiceException e && e.code() == ErrorCode.COLLECTION_NOT_FOUND
                ? Future.succeededFuture() : Future.failedFuture(failure));
  }

  @Override
  public Future<Void> upsert(String collection, List<Point> points, Deadline deadline) {
    if (points.isEmpty()) {
      return Future.succeededFuture();
    }
    return vectorName(collection, "upsert", deadline).compose(using -> {
      boolean sparse = sparseVectors.getOrDefault(collection, false);
      Map<String, io.qdrant.client.grpc.JsonWithInt.Value> options = bm25Options.getOrDefault(collection, Map.of());
      UpsertPoints.Builder upsert = UpsertPoints.newBuilder().setCollectionName(collection).setWait(true)
          .setOrdering(consistency.ordering());
      points.forEach(point -> upsert.addPoints(PointStruct.newBuilder()
          .setId(QdrantPayloads.toPointId(point.id()))
          .putAllPayload(QdrantPayloads.toPayload(point.payload()))
          .setVectors(sparse ? vectors(point.vector(), using, bm25(KeywordText.of(point.payload()), options))
              : vectors(point.vector(), using))));
      UpsertPoints message = upsert.build();
      return upstream.call("upsert", points.size(), deadline,
          budget -> channel.call(VxPointsGrpcClient.Upsert, message, budget, collection));
    }).mapEmpty();
  }

  @Override
  public Future<Void> deleteStale(String collection, String sourceUrl, Collection<String> keepIds,
      Deadline deadline) {
    DeletePoints delete = DeletePoints.newBuilder()
        .setCollectionName(collection)
        .setWait(true)
        .setOrdering(consistency.ordering())
        .setPoints(PointsSelector.newBuilder().setFilter(QdrantFilters.staleChunks(sourceUrl, keepIds)))
        .build();
    return upstream.call("delete_stale", deadline,
        budget -> channel.call(VxPointsGrpcClient.Delete, delete, budget, collection)).mapEmpty();
  }

  @Override
  public Future<List<FacetCount>> deleteMissing(String collection, String source, Collection<String> keepSourceUrls,
      Deadline deadline) {
    io.qdrant.client.grpc.Common.Filter missing =
        QdrantFilters.missingDocuments(INGEST_SOURCE, source, keepSourceUrls);
    CountPoints count = CountPoints.newBuilder().setCollectionName(collection).setFilter(missing).setExact(true).build();
    return upstream.call("delete_missing_count", deadline,
            budget -> channel.call(VxPointsGrpcClient.Count, count, budget, collection))
        .compose(counted -> {
          long points = counted.getResult().getCount();
          if (points == 0) {
            return Future.succeededFuture(List.<FacetCount>of());
          }
          // Qdrant facets only indexed keys: the index is made here for collections made elsewhere
          CreateFieldIndexCollection index = CreateFieldIndexCollection.newBuilder().setCollectionName(collection)
              .setFieldName("source_url").setFieldType(FieldType.FieldTypeKeyword).setWait(true)
              .setOrdering(consistency.ordering()).build();
          FacetCounts facet = FacetCounts.newBuilder().setCollectionName(collection).setKey("source_url")
              .setFilter(missing).setLimit(points).setExact(true).build();
          DeletePoints delete = DeletePoints.newBuilder().setCollectionName(collection).setWait(true)
              .setOrdering(consistency.ordering()).setPoints(PointsSelector.newBuilder().setFilter(missing)).build();
          return upstream.call("create_field_index", deadline,
                  budget -> channel.call(VxPointsGrpcClient.CreateFieldIndex, index, budget, collection))
              .compose(v -> upstream.call("facet", deadline,
                  budget -> channel.call(VxPointsGrpcClient.Facet, facet, budget, collection)))
              .compose(documents -> upstream.call("delete_missing", deadline,
                      budget -> channel.call(VxPointsGrpcClient.Delete, delete, budget, collection))
                  .map(done -> documents.getHitsList().stream()
                      .map(hit -> new FacetCount(facetValue(hit), hit.getCount())).toList()));
        });
  }

  @Override
  public Future<List<StoredChunk>> storedChunks(String collection, Collection<String> sourceUrls, List<String> keys,
      Deadline deadline) {
    if (sourceUrls.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    io.qdrant.client.grpc.Common.Filter filter = io.qdrant.client.grpc.Common.Filter.newBuilder()
        .addMust(QdrantFilters.condition("source_url", List.copyOf(sourceUrls))).build();
    ScrollPoints.Builder scroll = ScrollPoints.newBuilder()
        .setCollectionName(collection)
        .setFilter(filter)
        .setLimit(SCROLL_PAGE)
        .setWithPayload(WithPayloadSelector.newBuilder().setInclude(PayloadIncludeSelector.newBuilder().addAllFields(keys)))
        .setWithVectors(WithVectorsSelector.newBuilder().setEnable(false));
    return scroll(scroll, new ArrayList<>(), deadline);
  }

  @Override
  public Future<Void> setPagePayload(String collection, String sourceUrl, io.vertx.core.json.JsonObject fields,
      Deadline deadline) {
    SetPayloadPoints set = SetPayloadPoints.newBuilder()
        .setCollectionName(collection)
        .setWait(true)
        .setOrdering(consistency.ordering())
        .putAllPayload(QdrantPayloads.toPayload(fields))
        .setPointsSelector(PointsSelector.newBuilder().setFilter(QdrantFilters.staleChunks(sourceUrl, List.of())))
        .build();
    return upstream.call("set_payload", deadline,
        budget -> channel.call(VxPointsGrpcClient.SetPayload, set, budget, collection)).mapEmpty();
  }

  /** One Scroll call after another, each starting where the last said the next page begins. */
  private Future<List<StoredChunk>> scroll(ScrollPoints.Builder scroll, List<StoredChunk> into, Deadline deadline) {
    ScrollPoints message = scroll.build();
    return upstream.call("scroll", deadline,
            budget -> channel.call(VxPointsGrpcClient.Scroll, message, budget, message.getCollectionName()))
        .compose(response -> {
          for (RetrievedPoint point : response.getResultList()) {
            into.add(new StoredChunk(QdrantPayloads.fromPointId(point.getId()),
                QdrantPayloads.fromPayload(point.getPayloadMap())));
          }
          if (!response.hasNextPageOffset()) {
            return Future.succeededFuture(into);
          }
          return scroll(scroll.setOffset(response.getNextPageOffset()), into, deadline);
        });
  }

  @Override
  public Future<List<FacetCount>> facet(String collection, String key, int limit, Deadline deadline) {
    FacetCounts facet = FacetCounts.newBuilder()
        .setCollectionName(collection)
        .setKey(key)
        .setLimit(limit)
        .setExact(true)
        .build();
    return upstream.call("facet", deadline, budget -> channel.call(VxPointsGrpcClient.Facet, facet, budget, collection))
            .map(response -> response.getHitsList().stream()
                .sorted(Comparator.comparingLong(FacetHit::getCount).reversed())
                .map(hit -> new FacetCount(facetValue(hit), hit.getCount()))
                .toList());
  }

  @Override
  public Future<Void> close() {
    upstream.close();
    return channel.close();
  }

  private boolean hybridFor(SearchRequest request) {
    return request.wantsHybrid() && sparseVectors.getOrDefault(request.collection(), false);
  }

  /**
   * How many fused hits to ask for: the wanted ones and a margin past the cut. Qdrant sorts the fused list without a tie-break, so the hits
   * around its cut are in no fixed order; with the margin, the hits kept are those before the
   * first tie that reaches the end of the page, which {@link Page#settled} checks. Ties are
   * pairs of ranks swapped between the lists (or hits at the same rank of one list each), so a
   * margin of a few hits covers them; the page never needs more than both lists together. Every
   * hit of the page comes with its payload, and parsing those was the largest part of a hybrid
   * question once the vectors were gone (bench/HISTORY.md, twelfth pass): the margin is
   * {@value #HYBRID_MARGIN} hits (it was top_k + 10: a page of top_k x 2 + 10).
   */
  private static int hybridLimit(SearchRequest request) {
    int candidates = request.fusion().candidatesFor(request.limit());
    return Math.min(2 * candidates, request.limit() + HYBRID_MARGIN);
  }

  /** Fused hits asked past the cut (see {@link #hybridLimit}). */
  private static final int HYBRID_MARGIN = 5;

  /**
   * A dense prefetch (filtered, {@link Fusion#candidatesFor} long) and a BM25 prefetch over that
   * same dense prefetch (keywords re-rank the dense candidates, they bring none of their own), fused
   * by {@code Rrf {k, weights}}. The dense prefetch keeps the score threshold (dropping its tail
   * changes no one else's rank); the fused page is sorted and cut in {@link #fused}.
   */
  private QueryPoints hybridQuery(SearchRequest request, String using, int limit, boolean withVectors) {
    Fusion fusion = request.fusion();
    int prefetch = fusion.candidatesFor(request.limit());
    PrefetchQuery.Builder dense = PrefetchQuery.newBuilder()
        .setQuery(denseNearest(request))
        .setScoreThreshold(request.scoreThreshold())
        .setLimit(prefetch);
    if (!using.isEmpty()) {
      dense.setUsing(using);
    }
    QdrantFilters.of(request.filter()).ifPresent(dense::setFilter);
    // BM25 over the dense candidates only: Qdrant scores the nested prefetch's points with the
    // sparse query and keeps those sharing a token with it, as the embedded store's filtered BM25 does
    PrefetchQuery.Builder sparse = PrefetchQuery.newBuilder()
        .addPrefetch(dense.build())
        .setQuery(Query.newBuilder().setNearest(VectorInput.newBuilder()
            .setDocument(bm25(request.text(), bm25Options.getOrDefault(request.collection(), Map.of())))))
        .setUsing(SPARSE)
        .setLimit(prefetch);
    return QueryPoints.newBuilder()
        .setCollectionName(request.collection())
        .addPrefetch(dense)
        .addPrefetch(sparse)
        .setQuery(Query.newBuilder().setRrf(Rrf.newBuilder()
            .setK(fusion.qdrantK())
            .addWeights((float) fusion.denseWeight())
            .addWeights((float) fusion.keywordWeight())))
        .setLimit(limit)
        .setWithPayload(WithPayloadSelector.newBuilder().setEnable(true))
        .setWithVectors(!withVectors ? WithVectorsSelector.newBuilder().setEnable(false).build()
            : using.isEmpty()
            // the unnamed vector has no name to select by; the sparse one comes along, it is small
            ? WithVectorsSelector.newBuilder().setEnable(true).build()
            : WithVectorsSelector.newBuilder().setInclude(VectorsSelector.newBuilder().addNames(using)).build())
        .build();
  }

  private static Query denseNearest(SearchRequest request) {
    return Query.newBuilder().setNearest(VectorInput.newBuilder().setDense(dense(request.vector()))).build();
  }

  /** A dense list's cosines by point id. */
  private static Map<String, Float> cosines(List<io.qdrant.client.grpc.Points.ScoredPoint> points) {
    Map<String, Float> byId = new java.util.HashMap<>();
    for (io.qdrant.client.grpc.Points.ScoredPoint p : points) {
      byId.put(QdrantPayloads.fromPointId(p.getId()), p.getScore());
    }
    return byId;
  }

  /** A BM25 document; no options means Qdrant's defaults (collections written before options were sent). */
  private static Document bm25(String text, Map<String, io.qdrant.client.grpc.JsonWithInt.Value> options) {
    return Document.newBuilder().setText(text).setModel(BM25_MODEL).putAllOptions(options).build();
  }

  /** A dense search: the request's hits with their payloads. */
  private QueryPoints query(SearchRequest request, String using) {
    return nearest(request, using, request.limit(), true);
  }

  /**
   * A hybrid query's dense prefetch asked on its own, for the ids and cosines of its candidates:
   * the same vector, filter, threshold and limit, so the same points (Qdrant's search is
   * deterministic over the same segments); no payload.
   */
  private QueryPoints denseCandidates(SearchRequest request, String using) {
    return nearest(request, using, request.fusion().candidatesFor(request.limit()), false);
  }

  /** A nearest search on the dense vector, filtered, above the threshold; no vectors returned. */
  private static QueryPoints nearest(SearchRequest request, String using, int limit, boolean withPayload) {
    QueryPoints.Builder query = QueryPoints.newBuilder()
        .setCollectionName(request.collection())
        .setQuery(denseNearest(request))
        .setLimit(limit)
        .setScoreThreshold(request.scoreThreshold())
        .setWithPayload(WithPayloadSelector.newBuilder().setEnable(withPayload));
    QdrantFilters.of(request.filter()).ifPresent(query::setFilter);
    if (!using.isEmpty()) {
      query.setUsing(using);
    }
    return query.build();
  }

  /** The collection's vector name, asked of Qdrant once and remembered (failures are not). */
  private Future<String> vectorName(String collection, String operation, Deadline deadline) {
    String known = vectorNames.get(collection);
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return describe(collection, operation, deadline)
        .map(info -> vectorName(info.getConfig().getParams().getVectorsConfig()));
  }

  /** Asks Qdrant about the collection and remembers its vector name. */
  private Future<io.qdrant.client.grpc.Collections.CollectionInfo> describe(String collection, String operation,
      Deadline deadline) {
    GetCollectionInfoRequest get = GetCollectionInfoRequest.newBuilder().setCollectionName(collection).build();
    return upstream.call(operation, deadline, budget -> channel.call(VxCollectionsGrpcClient.Get, get, budget, collection))
        .map(response -> {
          io.qdrant.client.grpc.Collections.CollectionInfo info = response.getResult();
          vectorNames.put(collection, vectorName(info.getConfig().getParams().getVectorsConfig()));
          sparseVectors.put(collection, hasSparse(info));
          bm25Options.put(collection, bm25Options(info));
          return info;
        });
  }

  private static String vectorName(VectorsConfig vectors) {
    if (!vectors.hasParamsMap()) {
      return "";
    }
    Map<String, VectorParams> named = vectors.getParamsMap().getMapMap();
    if (named.containsKey("default")) {
      return "default";
    }
    return named.keySet().stream().sorted().findFirst().orElse("");
  }

  /** The BM25 options for the collection's recorded average length; none without one. */
  private static Map<String, io.qdrant.client.grpc.JsonWithInt.Value> bm25Options(
      io.qdrant.client.grpc.Collections.CollectionInfo info) {
    io.qdrant.client.grpc.JsonWithInt.Value avgLen = info.getConfig().getMetadataMap().get(AVG_LEN_KEY);
    if (avgLen == null || !(QdrantPayloads.fromValue(avgLen) instanceof Number n) || n.doubleValue() <= 0) {
      return Map.of();
    }
    return Map.copyOf(QdrantPayloads.toPayload(KeywordAnalysis.qdrantOptions(n.doubleValue())));
  }

  private static boolean hasSparse(io.qdrant.client.grpc.Collections.CollectionInfo info) {
    return info.getConfig().getParams().getSparseVectorsConfig().containsMap(SPARSE);
  }

  private static long vectorSize(VectorsConfig vectors, String name) {
    if (vectors.hasParams()) {
      return vectors.getParams().getSize();
    }
    VectorParams params = vectors.getParamsMap().getMapMap().get(name);
    return params == null ? 0 : params.getSize();
  }

  private static Vectors vectors(float[] vector, String using) {
    Vector dense = Vector.newBuilder().setDense(dense(vector)).build();
    if (using.isEmpty()) {
      return Vectors.newBuilder().setVector(dense).build();
    }
    return Vectors.newBuilder().setVectors(NamedVectors.newBuilder().putVectors(using, dense)).build();
  }

  /** The dense vector and the BM25 document Qdrant turns into the sparse one. */
  private static Vectors vectors(float[] vector, String using, Document keywords) {
    Vector dense = Vector.newBuilder().setDense(dense(vector)).build();
    Vector document = Vector.newBuilder().setDocument(keywords).build();
    // "" is Qdrant's name for the unnamed vector when named ones sit beside it
    return Vectors.newBuilder()
        .setVectors(NamedVectors.newBuilder().putVectors(using, dense).putVectors(SPARSE, document))
        .build();
  }

  /**
   * A dense vector, in the bytes protobuf writes for a packed {@code repeated float}: field 1,
   * length-delimited, each float's four bytes little-endian. They are copied from the array in one
   * go and carried as the message's unknown field 1, which protobuf writes out as it is and every
   * parser reads as the floats. Built float by float, the vectors of a 7-question QueryBatch took
   * about 28 µs to build and write here, and 8 µs this way (a list copy and a bounds-checked write
   * for each float, against one array copy). {@code QdrantDenseVectorTest} checks the bytes are
   * those of the message built float by float. On this side the message shows no data
   * ({@code getDataCount()} is 0): it is only ever sent.
   */
  static DenseVector dense(float[] vector) {
    if (vector.length == 0) {
      // an empty packed field is not written at all
      return DenseVector.getDefaultInstance();
    }
    byte[] bytes = new byte[vector.length * Float.BYTES];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(vector);
    UnknownFieldSet.Field data = UnknownFieldSet.Field.newBuilder()
        .addLengthDelimited(UnsafeByteOperations.unsafeWrap(bytes))
        .build();
    return DenseVector.newBuilder()
        .setUnknownFields(UnknownFieldSet.newBuilder().addField(DenseVector.DATA_FIELD_NUMBER, data).build())
        .build();
  }

  /** Where a fused hit's cosine comes from; null when it cannot say. */
  @FunctionalInterface
  private interface CosineOf {
    Float of(String id, io.qdrant.client.grpc.Points.ScoredPoint hit);
  }

  /**
   * A fused page as hits: each one's score becomes its cosine and the threshold applies to it;
   * sorted by {@link Fusion#ORDER} and cut to the limit. {@code asked}: the page size requested.
   * Null when a hit's cosine is unknown.
   */
  private static Page fused(List<io.qdrant.client.grpc.Points.ScoredPoint> points, SearchRequest request,
      int asked, CosineOf cosineOf) {
    List<Fusion.Fused> order = new ArrayList<>(points.size());
    Map<String, io.qdrant.client.grpc.Points.ScoredPoint> byId = new java.util.HashMap<>();
    float lowest = Float.POSITIVE_INFINITY;
    for (io.qdrant.client.grpc.Points.ScoredPoint p : points) {
      lowest = Math.min(lowest, p.getScore());
      String id = QdrantPayloads.fromPointId(p.getId());
      Float cosine = cosineOf.of(id, p);
      if (cosine == null) {
        return null;
      }
      if (cosine >= request.scoreThreshold()) {
        byId.put(id, p);
        order.add(new Fusion.Fused(id, p.getScore(), cosine));
      }
    }
    order.sort(Fusion.ORDER);
    List<Fusion.Fused> kept = order.subList(0, Math.min(request.limit(), order.size()));
    List<ScoredPoint> hits = kept.stream()
        .map(f -> new ScoredPoint(f.id(), f.cosine(), QdrantPayloads.fromPayload(byId.get(f.id()).getPayloadMap())))
        .toList();
    // a short page holds every candidate; a full one is safe when nothing unseen can tie the last hit kept
    boolean settled = points.size() < asked
        || (kept.size() == request.limit() && kept.get(kept.size() - 1).fused() > lowest);
    return new Page(hits, settled);
  }

  /** Hits of a fused page, and whether hits Qdrant left out could have changed them. */
  private record Page(List<ScoredPoint> hits, boolean settled) {}

  /** A hit's dense vector, which the query asked for. */
  private static float[] storedVector(io.qdrant.client.grpc.Points.ScoredPoint hit, String using) {
    float[] stored = denseOf(hit.getVectors(), using);
    if (stored == null) {
      throw new ServiceException(ErrorCode.UPSTREAM_ERROR, "Qdrant returned a hybrid hit without its dense vector");
    }
    return stored;
  }

  @SuppressWarnings("deprecation") // older servers fill the legacy data field
  private static float[] denseOf(VectorsOutput vectors, String using) {
    VectorOutput output = switch (vectors.getVectorsOptionsCase()) {
      case VECTOR -> vectors.getVector();
      case VECTORS -> vectors.getVectors().getVectorsMap().get(using);
      case VECTORSOPTIONS_NOT_SET -> null;
    };
    if (output == null) {
      return null;
    }
    List<Float> data = output.hasDense() ? output.getDense().getDataList() : output.getDataList();
    if (data.isEmpty()) {
      return null;
    }
    float[] out = new float[data.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = data.get(i);
    }
    return out;
  }

  private static float cosine(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new ServiceException(ErrorCode.UPSTREAM_ERROR,
          "Qdrant returned a vector of size " + b.length + " for a query of size " + a.length);
    }
    return (float) dev.ragretrieval.embedding.Vectors.cosine(a, b); // Qdrant's Points.Vectors holds the simple name
  }

  private static Object facetValue(FacetHit hit) {
    return switch (hit.getValue().getVariantCase()) {
      case STRING_VALUE -> hit.getValue().getStringValue();
      case INTEGER_VALUE -> hit.getValue().getIntegerValue();
      case BOOL_VALUE -> hit.getValue().getBoolValue();
      case VARIANT_NOT_SET -> null;
    };
  }

  private static Future<Void> acknowledged(CollectionOperationResponse response) {
    return response.getResult() ? Future.succeededFuture()
        : Future.failedFuture(new ServiceException(ErrorCode.UPSTREAM_ERROR, "Qdrant did not confirm the collection change"));
  }
}
