package dev.ragretrieval.search.embedded;

import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import dev.ragretrieval.search.StoredChunk;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.Fusion;
import dev.ragretrieval.search.KeywordAnalysis;
import dev.ragretrieval.error.ServiceException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.document.TextField;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.BytesRef;

/**
 * One collection: a Lucene index of points. Blocking; only {@link EmbeddedVectorStore}'s worker
 * threads call it. Every scalar payload value is also indexed as a keyword ({@code k.<key>}) so
 * filters work on any key, as they do in Qdrant. Each point's {@link KeywordText} (title, section,
 * text) is also indexed for BM25 in field {@value #KEYWORDS}, analysed as Qdrant's BM25 analyses it
 * ({@link KeywordAnalysis}), which a hybrid search fuses with the k-NN list ({@link Fusion}). Stores
 * written before that field existed (or with the older English analysis, in field "keywords") have
 * documents without it: they are searched dense until every document has been written again
 * (a re-ingest).
 */
final class LuceneCollection implements AutoCloseable {

  static final String ID = "id";
  static final String VECTOR = "vector";
  static final String PAYLOAD = "payload";
  static final String KEY_PREFIX = "k.";
  /** Longer values (chunk texts) are not useful as filter terms and can exceed Lucene's term limit. */
  private static final int MAX_KEYWORD_CHARS = 512;
  /** Lucene 9's default cap is 1024; OpenAI-sized vectors need more. */
  private static final int MAX_DIMENSIONS = 4096;
  /**
   * The least HNSW beam a k-NN search runs with, Qdrant's default search ef (its ef_construct).
   * With the beam as wide as the list asked for (40), bench/rust-book's 478 chunks missed their
   * nearest chunk for one question in 49, depending on the graph each ingest happened to build:
   * dense MRR@10 0.899 against 0.919 with a wider beam. Qdrant searches such small segments exactly.
   */
  private static final int MIN_BEAM = 100;
  /**
   * Up to this many vector floats (10,000 KB of them: Qdrant's default indexing threshold, under
   * which a segment keeps a plain index and is searched exactly), every vector is scored: no HNSW
   * walk, so no nearest chunk missed, whatever graph an ingest built. A book's 1,000 chunks of 384
   * floats are 1.5 MB; 6,666 of them are the most searched this way. With the beam above, one
   * ingest of a 989-chunk book left a question's nearest chunk out of its top 10 (first with a beam
   * of 400) where the next ingest of the same pages found it first.
   */
  static final long EXACT_FLOATS = 10_000L * 1024 / Float.BYTES;

  /** A new name for the new analysis, so an index analysed the old way is not queried the new way. */
  static final String KEYWORDS = "keyword_text";
  /**
   * Marks a document written with {@link #KEYWORDS}: a keyword text without a single token (a stop
   * word title over a code fragment) leaves no trace of that field, and must not make the whole
   * collection look unanalysed.
   */
  private static final String ANALYSED = "analysed";
  private static final Term ANALYSED_NOW = new Term(ANALYSED, "keyword_text");
  /** Who writes a collection right now: read when another process holds the write lock. */
  static final String WRITER_FILE = "writer.json";

  private final int vectorSize;
  private final Path indexDir;
  private final boolean readOnly;
  private final Directory directory;
  private final Object writeLock = new Object();
  /** Only the keyword field is analysed; ids and payload keywords are StringFields, kept verbatim. */
  private final Analyzer analyzer = KeywordAnalysis.analyzer();
  /** Null until the index has its first commit. */
  private volatile SearcherManager searchers;
  /** The commit generation {@link #searchers} was last refreshed to (or past). */
  private volatile long openedCommit = -1;

  /**
   * Readers see the last commit of any process and refresh before each read. The write lock is
   * held only while a write runs, so a server, a query and an ingest can share a data directory.
   */
  LuceneCollection(Path indexDir, int vectorSize, boolean readOnly) throws IOException {
    this.vectorSize = vectorSize;
    this.indexDir = indexDir;
    this.readOnly = readOnly;
    this.directory = FSDirectory.open(indexDir);
    if (!readOnly && !DirectoryReader.indexExists(directory)) {
      write(writer -> {}); // the first commit, so readers can open the empty index
    }
  }

  /** A writable collection whose write lock this process can take now (held by nobody else). */
  static void checkWritable(Path indexDir) throws IOException {
    try (Directory dir = FSDirectory.open(indexDir); Lock lock = dir.obtainLock(IndexWriter.WRITE_LOCK_NAME)) {
      lock.ensureValid();
    }
  }

  /** Who holds the write lock, as the writer recorded it: "process 123 (java -jar ... serve)". */
  static String writerOf(Path indexDir) {
    try {
      JsonObject writer = new JsonObject(Files.readString(indexDir.resolveSibling(WRITER_FILE), StandardCharsets.UTF_8));
      long pid = writer.getLong("pid");
      String command = ProcessHandle.of(pid).flatMap(p -> p.info().commandLine()).orElse(writer.getString("command"));
      return "process " + pid + (command == null || command.isBlank() ? "" : " (" + clip(command) + ")");
    } catch (IOException | RuntimeException e) {
      return "another process";
    }
  }

  private static String clip(String command) {
    return command.length() <= 160 ? command : command.substring(0, 157) + "...";
  }

  int vectorSize() {
    return vectorSize;
  }

  long count() throws IOException {
    return read(searcher -> (long) searcher.getIndexReader().numDocs(), 0L);
  }

  void upsert(List<Point> points) throws IOException {
    write(writer -> {
      for (Point point : points) {
        writer.updateDocument(new Term(ID, point.id()), document(point));
      }
    });
  }

  /** Deletes the points of {@code sourceUrl} not in {@code keepIds}; returns how many went. */
  long deleteStale(String sourceUrl, Collection<String> keepIds) throws IOException {
    BooleanQuery.Builder stale = new BooleanQuery.Builder()
        .add(new TermQuery(new Term(KEY_PREFIX + "source_url", sourceUrl)), Occur.FILTER);
    if (!keepIds.isEmpty()) {
      stale.add(new TermInSetQuery(ID, keepIds.stream().map(BytesRef::new).toList()), Occur.MUST_NOT);
    }
    Query query = stale.build();
    long before = countOf(query);
    if (before > 0) {
      write(writer -> writer.deleteDocuments(query));
    }
    return before;
  }

  /**
   * Deletes the points whose {@code sourceKey} is {@code source} and whose source_url is not kept;
   * answers each removed source_url with its number of points.
   */
  List<FacetCount> deleteMissing(String sourceKey, String source, Collection<String> keepSourceUrls)
      throws IOException {
    BooleanQuery.Builder missing = new BooleanQuery.Builder()
        .add(new TermQuery(new Term(KEY_PREFIX + sourceKey, source)), Occur.FILTER);
    if (!keepSourceUrls.isEmpty()) {
      missing.add(new TermInSetQuery(KEY_PREFIX + "source_url", keepSourceUrls.stream().map(BytesRef::new).toList()),
          Occur.MUST_NOT);
    }
    Query query = missing.build();
    Map<String, Long> removed = read(searcher -> {
      Map<String, Long> urls = new java.util.TreeMap<>();
      int hits = searcher.count(query);
      if (hits > 0) {
        for (ScoreDoc doc : searcher.search(query, hits).scoreDocs) {
          String url = new JsonObject(searcher.storedFields().document(doc.doc).get(PAYLOAD)).getString("source_url");
          urls.merge(String.valueOf(url), 1L, Long::sum);
        }
      }
      return urls;
    }, Map.of());
    if (removed.isEmpty()) {
      return List.of();
    }
    write(writer -> writer.deleteDocuments(query));
    return removed.entrySet().stream().map(e -> new FacetCount(e.getKey(), e.getValue())).toList();
  }

  /** The points whose payload {@code key} is one of {@code values}, each with the payload {@code fields} it has. */
  List<StoredChunk> stored(String key, Collection<String> values, List<String> fields) throws IOException {
    if (values.isEmpty()) {
      return List.of();
    }
    Query query = new TermInSetQuery(KEY_PREFIX + key, values.stream().map(BytesRef::new).toList());
    return read(searcher -> {
      int hits = searcher.count(query);
      List<StoredChunk> out = new ArrayList<>(hits);
      if (hits == 0) {
        return out;
      }
      for (ScoreDoc doc : searcher.search(query, hits).scoreDocs) {
        Document stored = searcher.storedFields().document(doc.doc, Set.of(ID, PAYLOAD));
        JsonObject payload = new JsonObject(stored.get(PAYLOAD));
        JsonObject picked = new JsonObject();
        for (String field : fields) {
          if (payload.containsKey(field)) {
            picked.put(field, payload.getValue(field));
          }
        }
        out.add(new StoredChunk(stored.get(ID), picked));
      }
      return out;
    }, List.of());
  }

  /**
   * Sets {@code fields} in the payload of every point whose payload {@code key} is {@code value}:
   * each is written again with its own vector (Lucene changes a document by replacing it).
   */
  void setPayload(String key, String value, JsonObject fields) throws IOException {
    Query query = new TermQuery(new Term(KEY_PREFIX + key, value));
    List<Point> changed = read(searcher -> {
      int hits = searcher.count(query);
      List<Point> points = new ArrayList<>(hits);
      if (hits == 0) {
        return points;
      }
      List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
      for (ScoreDoc hit : searcher.search(query, hits).scoreDocs) {
        Document stored = searcher.storedFields().document(hit.doc, Set.of(ID, PAYLOAD));
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(hit.doc, leaves));
        FloatVectorValues values = leaf.reader().getFloatVectorValues(VECTOR);
        int local = hit.doc - leaf.docBase;
        if (values == null || values.advance(local) != local) {
          continue; // no vector: nothing a search would find, nothing to keep
        }
        JsonObject payload = new JsonObject(stored.get(PAYLOAD)).mergeIn(fields);
        points.add(new Point(stored.get(ID), values.vectorValue().clone(), payload));
      }
      return points;
    }, List.of());
    if (!changed.isEmpty()) {
      upsert(changed);
    }
  }

  List<ScoredPoint> search(float[] vector, int limit, float threshold, Map<String, List<Object>> filter)
      throws IOException {
    Query filterQuery = filterQuery(filter);
    return read(searcher -> {
      List<ScoredPoint> hits = new ArrayList<>();
      for (ScoreDoc doc : nearest(searcher, vector, limit, filterQuery)) {
        float cosine = cosine(doc.score);
        if (cosine < threshold) {
          break;
        }
        hits.add(point(searcher, doc.doc, cosine));
        if (hits.size() == limit) {
          break;
        }
      }
      return hits;
    }, List.of());
  }

  /** Whether every document carries the keyword field, so BM25 sees the whole collection. */
  boolean hybrid() throws IOException {
    // nothing written yet (true): whatever this version writes has the field
    return read(searcher -> searcher.count(new TermQuery(ANALYSED_NOW)) == searcher.getIndexReader().numDocs(), true);
  }

  /**
   * The k-NN list (filtered, cosine at or above the threshold, {@link Fusion#candidatesFor} long)
   * and the BM25 list of those same candidates (the ones sharing a token with the question, by BM25
   * score), fused as {@code fusion} says and ordered by {@link Fusion#ORDER}; each hit keeps its
   * cosine as score. Keywords re-rank what the vectors found; they bring no chunk of their own.
   */
  List<ScoredPoint> hybridSearch(float[] vector, String text, int limit, float threshold,
      Map<String, List<Object>> filter, Fusion fusion) throws IOException {
    int candidates = fusion.candidatesFor(limit);
    Query filterQuery = filterQuery(filter);
    return read(searcher -> {
      Map<Integer, Float> cosines = new HashMap<>();
      List<String> dense = new ArrayList<>();
      List<BytesRef> denseIds = new ArrayList<>();
      for (ScoreDoc doc : nearest(searcher, vector, candidates, filterQuery)) {
        float cosine = cosine(doc.score);
        if (cosine >= threshold) {
          cosines.put(doc.doc, cosine);
          dense.add(Integer.toString(doc.doc));
          denseIds.add(new BytesRef(searcher.storedFields().document(doc.doc, Set.of(ID)).get(ID)));
        }
      }
      List<String> keyword = new ArrayList<>();
      Query bm25 = keywordQuery(text);
      if (bm25 != null && !denseIds.isEmpty()) {
        // BM25 re-ranks the dense candidates only (the filter is within them), as Qdrant's nested prefetch does
        Query scoped = new BooleanQuery.Builder().add(bm25, Occur.MUST)
            .add(new TermInSetQuery(ID, denseIds), Occur.FILTER).build();
        for (ScoreDoc doc : searcher.search(scoped, candidates).scoreDocs) {
          keyword.add(Integer.toString(doc.doc));
        }
      }
      List<Fusion.Fused> fused = new ArrayList<>();
      Map<String, Integer> docs = new HashMap<>();
      for (Map.Entry<String, Float> entry : fusion.scores(dense, keyword).entrySet()) {
        int doc = Integer.parseInt(entry.getKey());
        Float cosine = cosines.get(doc);
        if (cosine == null) {
          cosine = cosine(searcher, doc, vector);
        }
        if (cosine < threshold) {
          continue;
        }
        String id = searcher.storedFields().document(doc, Set.of(ID)).get(ID);
        docs.put(id, doc);
        fused.add(new Fusion.Fused(id, entry.getValue(), cosine));
      }
      fused.sort(Fusion.ORDER);
      List<ScoredPoint> hits = new ArrayList<>();
      for (Fusion.Fused hit : fused.subList(0, Math.min(limit, fused.size()))) {
        hits.add(point(searcher, docs.get(hit.id()), hit.cosine()));
      }
      return hits;
    }, List.of());
  }

  /**
   * BM25 over the keyword field: one optional clause per distinct query token, as Qdrant's query
   * vector holds each token once. Null when the text has no token.
   */
  private static Query keywordQuery(String text) {
    Set<String> terms = new LinkedHashSet<>(KeywordAnalysis.tokens(text));
    if (terms.isEmpty()) {
      return null;
    }
    BooleanQuery.Builder query = new BooleanQuery.Builder();
    terms.forEach(term -> query.add(new TermQuery(new Term(KEYWORDS, term)), Occur.SHOULD));
    return query.build();
  }

  /**
   * The {@code n} nearest documents that pass {@code filter}, best first: exactly in a collection up
   * to {@link #EXACT_FLOATS}, else by the HNSW graph with a beam four times the list (as the dense
   * search always had), and never under {@link #MIN_BEAM}.
   */
  private static ScoreDoc[] nearest(IndexSearcher searcher, float[] vector, int n, Query filter) throws IOException {
    int docs = searcher.getIndexReader().numDocs();
    if ((long) docs * vector.length <= EXACT_FLOATS) {
      // Lucene scores a segment exactly when no more documents pass the filter than it is asked for
      Query all = new KnnFloatVectorQuery(VECTOR, vector, Math.max(1, docs),
          filter == null ? new MatchAllDocsQuery() : filter);
      return searcher.search(all, n).scoreDocs;
    }
    int beam = Math.max(4 * n, MIN_BEAM);
    ScoreDoc[] found = searcher.search(new KnnFloatVectorQuery(VECTOR, vector, beam, filter), beam).scoreDocs;
    return found.length <= n ? found : java.util.Arrays.copyOf(found, n);
  }

  /** The hit {@code doc} as the store answers it: its id, the cosine, its payload. */
  private static ScoredPoint point(IndexSearcher searcher, int doc, float cosine) throws IOException {
    Document stored = searcher.storedFields().document(doc);
    return new ScoredPoint(stored.get(ID), cosine, new JsonObject(stored.get(PAYLOAD)));
  }

  /** Lucene scores COSINE as (1 + cos) / 2; the contract's score is the cosine itself. */
  private static float cosine(float luceneScore) {
    return 2f * luceneScore - 1f;
  }

  /** The cosine of a document's stored vector and the query, for a hit the k-NN list did not score. */
  private static float cosine(IndexSearcher searcher, int doc, float[] query) throws IOException {
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    FloatVectorValues values = leaf.reader().getFloatVectorValues(VECTOR);
    int local = doc - leaf.docBase;
    if (values == null || values.advance(local) != local) {
      return -1f;
    }
    return cosine(VectorSimilarityFunction.COSINE.compare(query, values.vectorValue()));
  }

  List<FacetCount> facet(String key, int limit) throws IOException {
    return read(searcher -> {
      Set<String> values = new LinkedHashSet<>();
      for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
        Terms terms = leaf.reader().terms(KEY_PREFIX + key);
        if (terms == null) {
          continue;
        }
        TermsEnum it = terms.iterator();
        for (BytesRef term = it.next(); term != null; term = it.next()) {
          values.add(term.utf8ToString());
        }
      }
      List<FacetCount> counts = new ArrayList<>();
      for (String value : values) {
        // count() honours deletions, unlike docFreq
        int count = searcher.count(new TermQuery(new Term(KEY_PREFIX + key, value)));
        if (count > 0) {
          counts.add(new FacetCount(value, count));
        }
      }
      counts.sort(Comparator.comparingLong(FacetCount::count).reversed()
          .thenComparing(c -> String.valueOf(c.value())));
      return counts.size() > limit ? List.copyOf(counts.subList(0, limit)) : counts;
    }, List.of());
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      if (searchers != null) {
        searchers.close();
      }
    } finally {
      directory.close();
    }
  }

  private interface Change {
    void apply(IndexWriter writer) throws IOException;
  }

  /**
   * One write: take the lock, change, commit, let the lock go, then refresh so the change is
   * searchable when the caller hears back. A lock held elsewhere fails with LockObtainFailedException.
   */
  private void write(Change change) throws IOException {
    if (readOnly) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "the embedded store was opened read-only");
    }
    synchronized (writeLock) {
      IndexWriterConfig config = new IndexWriterConfig(analyzer).setCodec(new WideVectorCodec());
      IndexWriter writer;
      try {
        writer = new IndexWriter(directory, config);
      } catch (LockObtainFailedException e) {
        throw new ServiceException(ErrorCode.CONNECTION_ERROR, "collection '" + indexDir.getParent().getFileName()
            + "' is being written by " + writerOf(indexDir) + "; try again when it has finished");
      }
      try (writer) {
        Path owner = indexDir.resolveSibling(WRITER_FILE);
        Files.writeString(owner, new JsonObject().put("pid", ProcessHandle.current().pid())
            .put("command", ProcessHandle.current().info().commandLine().orElse("")).encode(), StandardCharsets.UTF_8);
        try {
          change.apply(writer);
          writer.commit();
        } finally {
          Files.deleteIfExists(owner);
        }
      }
    }
    SearcherManager current = searchers();
    if (current != null) {
      current.maybeRefreshBlocking();
    }
  }

  /**
   * The searchers over the last commit, refreshed when another process committed since. Whether
   * one did is read from the commit file names ({@code segments_N}): asking the reader instead
   * parses the whole commit file, which was a third of a search's time with 64 clients.
   */
  private SearcherManager searchers() throws IOException {
    SearcherManager current = searchers;
    if (current != null && lastCommit() == openedCommit) {
      return current;
    }
    return refreshedSearchers();
  }

  /** The generation of the newest commit in the directory; -1 when there is none (or it cannot be listed). */
  private long lastCommit() {
    try {
      return SegmentInfos.getLastCommitGeneration(directory);
    } catch (IOException e) {
      return -1;
    }
  }

  private synchronized SearcherManager refreshedSearchers() throws IOException {
    // read before the refresh: a commit landing meanwhile makes the next read refresh again
    long commit = lastCommit();
    if (searchers == null) {
      if (!DirectoryReader.indexExists(directory)) {
        return null;
      }
      searchers = new SearcherManager(directory, null);
    } else {
      try {
        searchers.maybeRefresh();
      } catch (IOException e) {
        // the index was replaced under us (another process recreated the collection): open it anew
        searchers.close();
        searchers = null;
        return refreshedSearchers();
      }
    }
    openedCommit = commit;
    return searchers;
  }

  private long countOf(Query query) throws IOException {
    return read(searcher -> (long) searcher.count(query), 0L);
  }

  private interface Read<T> {
    T apply(IndexSearcher searcher) throws IOException;
  }

  /** {@code read} on a searcher over the last commit, or {@code empty} when nothing was committed yet. */
  private <T> T read(Read<T> read, T empty) throws IOException {
    SearcherManager current = searchers();
    if (current == null) {
      return empty;
    }
    IndexSearcher searcher = current.acquire();
    try {
      return read.apply(searcher);
    } finally {
      current.release(searcher);
    }
  }

  private Document document(Point point) {
    Document doc = new Document();
    doc.add(new StringField(ID, point.id(), Field.Store.YES));
    doc.add(new KnnFloatVectorField(VECTOR, point.vector(), VectorSimilarityFunction.COSINE));
    doc.add(new StoredField(PAYLOAD, point.payload().encode()));
    doc.add(new TextField(KEYWORDS, KeywordText.of(point.payload()), Field.Store.NO));
    doc.add(new StringField(ANALYSED, ANALYSED_NOW.text(), Field.Store.NO));
    point.payload().forEach(entry -> {
      if (entry.getValue() instanceof JsonArray array) {
        array.forEach(item -> addKeyword(doc, entry.getKey(), item));
      } else {
        addKeyword(doc, entry.getKey(), entry.getValue());
      }
    });
    return doc;
  }

  private static void addKeyword(Document doc, String key, Object value) {
    String term = keyword(value);
    if (term != null && term.length() <= MAX_KEYWORD_CHARS) {
      doc.add(new StringField(KEY_PREFIX + key, term, Field.Store.NO));
    }
  }

  /** The term a payload or filter value is indexed and matched as; null for non-scalars. */
  static String keyword(Object value) {
    if (value instanceof String s) {
      return s;
    }
    if (value instanceof Boolean b) {
      return b.toString();
    }
    if (value instanceof Number n) {
      double d = n.doubleValue();
      // 3 and 3.0 must match each other, as JSON numbers do
      return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString(n.longValue()) : Double.toString(d);
    }
    return null;
  }

  private static Query filterQuery(Map<String, List<Object>> filter) {
    if (filter.isEmpty()) {
      return null;
    }
    BooleanQuery.Builder all = new BooleanQuery.Builder();
    filter.forEach((key, values) -> {
      List<BytesRef> terms = values.stream().map(LuceneCollection::keyword)
          .filter(t -> t != null).map(BytesRef::new).toList();
      // a key whose values cannot match anything must match nothing, not be ignored
      all.add(terms.isEmpty() ? new MatchNoDocsQuery()
          : new TermInSetQuery(KEY_PREFIX + key, terms), Occur.FILTER);
    });
    return all.build();
  }

  /** The default codec, with the vector dimension cap raised (the on-disk format is unchanged). */
  private static final class WideVectorCodec extends Lucene912Codec {
    private final KnnVectorsFormat hnsw = new Lucene99HnswVectorsFormat();
    private final KnnVectorsFormat wide = new KnnVectorsFormat(hnsw.getName()) {
      @Override
      public KnnVectorsWriter fieldsWriter(SegmentWriteState state) throws IOException {
        return hnsw.fieldsWriter(state);
      }

      @Override
      public KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
        return hnsw.fieldsReader(state);
      }

      @Override
      public int getMaxDimensions(String fieldName) {
        return MAX_DIMENSIONS;
      }
    };

    @Override
    public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
      return wide;
    }
  }
}
