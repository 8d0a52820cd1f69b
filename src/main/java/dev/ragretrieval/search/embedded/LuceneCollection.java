package dev.ragretrieval.search.embedded;

import dev.ragretrieval.search.FacetCount;
import dev.ragretrieval.search.KeywordText;
import dev.ragretrieval.search.Rrf;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.search.ScoredPoint;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
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
import org.apache.lucene.document.TextField;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.util.QueryBuilder;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * One collection: a Lucene index of points. Blocking; only {@link EmbeddedVectorStore}'s worker
 * threads call it. Every scalar payload value is also indexed as a keyword ({@code k.<key>}) so
 * filters work on any key, as they do in Qdrant. Each point's {@link KeywordText} (title, section,
 * text) is also indexed as English text ({@value #KEYWORDS}: stop words out, Porter stems) for BM25,
 * which a hybrid search fuses with the k-NN list by reciprocal rank fusion. Stores written before
 * that field existed have documents without it: they are searched dense until every document has
 * been written again (a re-ingest).
 */
final class LuceneCollection implements AutoCloseable {

  static final String ID = "id";
  static final String VECTOR = "vector";
  static final String PAYLOAD = "payload";
  static final String KEY_PREFIX = "k.";
  static final String KEYWORDS = "keywords";
  /** Longer values (chunk texts) are not useful as filter terms and can exceed Lucene's term limit. */
  private static final int MAX_KEYWORD_CHARS = 512;
  /** Lucene 9's default cap is 1024; OpenAI-sized vectors need more. */
  private static final int MAX_DIMENSIONS = 4096;

  private final int vectorSize;
  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  /** Only the keyword field is analysed; ids and payload keywords are StringFields, kept verbatim. */
  private final Analyzer analyzer = new EnglishAnalyzer();

  LuceneCollection(Path indexDir, int vectorSize) throws IOException {
    this.vectorSize = vectorSize;
    this.directory = FSDirectory.open(indexDir);
    IndexWriterConfig config = new IndexWriterConfig(analyzer).setCodec(new WideVectorCodec());
    this.writer = new IndexWriter(directory, config);
    this.searchers = new SearcherManager(writer, null);
  }

  int vectorSize() {
    return vectorSize;
  }

  long count() throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      return searcher.getIndexReader().numDocs();
    } finally {
      searchers.release(searcher);
    }
  }

  void upsert(List<Point> points) throws IOException {
    for (Point point : points) {
      writer.updateDocument(new Term(ID, point.id()), document(point));
    }
    publish();
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
      writer.deleteDocuments(query);
      publish();
    }
    return before;
  }

  List<ScoredPoint> search(float[] vector, int limit, float threshold, Map<String, List<Object>> filter)
      throws IOException {
    int candidates = Math.max(limit * 4, 40);
    Query query = new KnnFloatVectorQuery(VECTOR, vector, candidates, filterQuery(filter));
    IndexSearcher searcher = searchers.acquire();
    try {
      TopDocs top = searcher.search(query, candidates);
      List<ScoredPoint> hits = new ArrayList<>();
      for (ScoreDoc doc : top.scoreDocs) {
        // Lucene scores COSINE as (1 + cos) / 2; the contract's score is the cosine itself
        float cosine = 2f * doc.score - 1f;
        if (cosine < threshold) {
          break;
        }
        Document stored = searcher.storedFields().document(doc.doc);
        hits.add(new ScoredPoint(stored.get(ID), cosine, new JsonObject(stored.get(PAYLOAD))));
        if (hits.size() == limit) {
          break;
        }
      }
      return hits;
    } finally {
      searchers.release(searcher);
    }
  }

  /** Whether every document carries the keyword field, so BM25 sees the whole collection. */
  boolean hybrid() throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      return searcher.count(new FieldExistsQuery(KEYWORDS)) == searcher.getIndexReader().numDocs();
    } finally {
      searchers.release(searcher);
    }
  }

  /**
   * The k-NN list (cosine at or above the threshold) and the BM25 list, both filtered, fused by
   * RRF (k = {@value Rrf#DEFAULT_K}); each hit keeps its cosine as score, and a keyword hit below
   * the threshold is dropped like any other.
   */
  List<ScoredPoint> hybridSearch(float[] vector, String text, int limit, float threshold,
      Map<String, List<Object>> filter) throws IOException {
    int candidates = Math.max(limit * 4, 40);
    Query filterQuery = filterQuery(filter);
    IndexSearcher searcher = searchers.acquire();
    try {
      Map<Integer, Float> cosines = new HashMap<>();
      List<String> dense = new ArrayList<>();
      for (ScoreDoc doc : searcher.search(new KnnFloatVectorQuery(VECTOR, vector, candidates, filterQuery), candidates).scoreDocs) {
        float cosine = 2f * doc.score - 1f;
        if (cosine >= threshold) {
          cosines.put(doc.doc, cosine);
          dense.add(Integer.toString(doc.doc));
        }
      }
      List<String> keyword = new ArrayList<>();
      Query bm25 = new QueryBuilder(analyzer).createBooleanQuery(KEYWORDS, text);
      if (bm25 != null) {
        Query scoped = filterQuery == null ? bm25
            : new BooleanQuery.Builder().add(bm25, Occur.MUST).add(filterQuery, Occur.FILTER).build();
        for (ScoreDoc doc : searcher.search(scoped, candidates).scoreDocs) {
          keyword.add(Integer.toString(doc.doc));
        }
      }
      List<ScoredPoint> hits = new ArrayList<>();
      for (String fused : Rrf.fuse(List.of(dense, keyword), Rrf.DEFAULT_K)) {
        int doc = Integer.parseInt(fused);
        Float cosine = cosines.get(doc);
        if (cosine == null) {
          cosine = cosine(searcher, doc, vector);
        }
        if (cosine < threshold) {
          continue;
        }
        Document stored = searcher.storedFields().document(doc);
        hits.add(new ScoredPoint(stored.get(ID), cosine, new JsonObject(stored.get(PAYLOAD))));
        if (hits.size() == limit) {
          break;
        }
      }
      return hits;
    } finally {
      searchers.release(searcher);
    }
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
    // Lucene's COSINE similarity is (1 + cos) / 2
    return 2f * VectorSimilarityFunction.COSINE.compare(query, values.vectorValue()) - 1f;
  }

  List<FacetCount> facet(String key, int limit) throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
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
    } finally {
      searchers.release(searcher);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      searchers.close();
      writer.close();
    } finally {
      directory.close();
    }
  }

  /** Commit for durability, then refresh so the change is searchable when the caller hears back. */
  private void publish() throws IOException {
    writer.commit();
    searchers.maybeRefreshBlocking();
  }

  private long countOf(Query query) throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      return searcher.count(query);
    } finally {
      searchers.release(searcher);
    }
  }

  private Document document(Point point) {
    Document doc = new Document();
    doc.add(new StringField(ID, point.id(), Field.Store.YES));
    doc.add(new KnnFloatVectorField(VECTOR, point.vector(), VectorSimilarityFunction.COSINE));
    doc.add(new StoredField(PAYLOAD, point.payload().encode()));
    doc.add(new TextField(KEYWORDS, KeywordText.of(point.payload()), Field.Store.NO));
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
