package dev.ragretrieval.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.util.StringHelper;
import org.tartarus.snowball.ext.EnglishStemmer;

/**
 * Qdrant's server-side BM25 inference (model {@code qdrant/bm25}) with its defaults, as read in
 * Qdrant's source (src/common/inference/bm25.rs, bm25_inference.rs and the full-text tokenizers):
 * the word tokenizer (split on every character that is not alphanumeric), lowercase, the English
 * stop words (NLTK's list, lib/segment/.../stop_words/english.rs), the Snowball English stemmer;
 * a term's id is murmur3_32 (seed 0) of its UTF-8 bytes read as i32, absolute value. A document's
 * weight for a term is {@code tf * (k + 1) / (tf + k * (1 - b + b * len / avg_len))} with k 1.2,
 * b 0.75, avg_len 256; a query's is 1 per distinct term. IDF is not here: the collection's IDF
 * modifier applies it at query time ({@link QdrantTestStore}).
 */
public final class QdrantTestBm25 {

  private static final double K = 1.2;
  private static final double B = 0.75;
  private static final double AVG_LEN = 256;

  static final Set<String> STOP_WORDS = Set.of(
      "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "you're", "you've", "you'll",
      "you'd", "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "she's",
      "her", "hers", "herself", "it", "it's", "its", "itself", "they", "them", "their", "theirs",
      "themselves", "what", "which", "who", "whom", "this", "that", "that'll", "these", "those", "am",
      "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does",
      "did", "doing", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while",
      "of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during",
      "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over",
      "under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how", "all",
      "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only",
      "own", "same", "so", "than", "too", "very", "s", "t", "can", "will", "just", "don", "don't",
      "should", "should've", "now", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren", "aren't",
      "couldn", "couldn't", "didn", "didn't", "doesn", "doesn't", "hadn", "hadn't", "hasn", "hasn't",
      "haven", "haven't", "isn", "isn't", "ma", "mightn", "mightn't", "mustn", "mustn't", "needn",
      "needn't", "shan", "shan't", "shouldn", "shouldn't", "wasn", "wasn't", "weren", "weren't", "won",
      "won't", "wouldn", "wouldn't");

  private QdrantTestBm25() {}

  /** Term id -> BM25 term-frequency weight of a document. */
  public static Map<Integer, Float> document(String text) {
    List<String> tokens = tokens(text);
    Map<String, Integer> counts = new LinkedHashMap<>();
    tokens.forEach(t -> counts.merge(t, 1, Integer::sum));
    Map<Integer, Float> out = new TreeMap<>();
    double norm = K * (1 - B + B * tokens.size() / AVG_LEN);
    counts.forEach((token, n) -> out.put(termId(token), (float) (n * (K + 1) / (n + norm))));
    return out;
  }

  /** Term id -> 1 for each distinct term of a query. */
  public static Map<Integer, Float> query(String text) {
    Map<Integer, Float> out = new TreeMap<>();
    new LinkedHashSet<>(tokens(text)).forEach(t -> out.put(termId(t), 1f));
    return out;
  }

  public static List<String> tokens(String text) {
    List<String> out = new ArrayList<>();
    EnglishStemmer stemmer = new EnglishStemmer();
    int start = -1;
    for (int i = 0; i <= text.length(); ) {
      int cp = i < text.length() ? text.codePointAt(i) : ' ';
      boolean word = i < text.length() && Character.isLetterOrDigit(cp);
      if (word && start < 0) {
        start = i;
      } else if (!word && start >= 0) {
        String token = text.substring(start, i).toLowerCase(Locale.ROOT);
        start = -1;
        if (!STOP_WORDS.contains(token)) {
          stemmer.setCurrent(token);
          stemmer.stem();
          out.add(stemmer.getCurrent());
        }
      }
      i += Character.charCount(cp);
    }
    return out;
  }

  public static int termId(String token) {
    byte[] bytes = token.getBytes(StandardCharsets.UTF_8);
    int hash = StringHelper.murmurhash3_x86_32(bytes, 0, bytes.length, 0);
    // i32::unsigned_abs: |MIN_VALUE| is 2^31, the same bits as MIN_VALUE read as uint32
    return hash == Integer.MIN_VALUE ? hash : Math.abs(hash);
  }
}
