package dev.ragretrieval.search;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.miscellaneous.LengthFilter;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.util.CharTokenizer;
import org.tartarus.snowball.ext.EnglishStemmer;

/**
 * The keyword (BM25) analysis both stores apply to {@link KeywordText} and to query texts, written
 * once: the embedded store indexes with {@link #analyzer()}, and Qdrant's server-side
 * {@code qdrant/bm25} gets the options that make it tokenize alike ({@link #qdrantOptions}).
 * Qdrant 1.18's steps (src/common/inference/bm25.rs and the full-text tokenizers): split on every
 * character that is not alphanumeric, lowercase, drop English stop words, Snowball English stem,
 * drop tokens longer than {@value #MAX_TOKEN_CHARS} characters; a document's term weight is
 * BM25's with {@value #K1} and {@value #B} and the collection's average length in tokens.
 * What still differs: Lucene stores a document's length in one byte (exact up to 40
 * tokens, rounded down by up to 11% above), Lucene lowercases per character where Qdrant applies Unicode's
 * full lowercase mapping, and Lucene keeps the average length current while Qdrant weighs each
 * document with the average the collection was given when it was written.
 */
public final class KeywordAnalysis {

  /** BM25 term frequency saturation (Lucene's and Qdrant's default). */
  public static final double K1 = 1.2;
  /** BM25 length normalisation (Lucene's and Qdrant's default). */
  public static final double B = 0.75;
  /** Longer tokens (hashes, encoded data) are noise in a manual; both engines drop them. */
  public static final int MAX_TOKEN_CHARS = 40;
  /** Qdrant's own average document length, used when a collection has none recorded. */
  public static final double QDRANT_DEFAULT_AVG_LEN = 256;
  /** The language Qdrant derives its stop words and stemmer from. */
  public static final String LANGUAGE = "english";

  /**
   * Qdrant's English stop words (lib/segment/.../stop_words/english.rs, NLTK's list), so the
   * embedded store drops the same ones. Entries with an apostrophe never match a token: both
   * tokenizers split there. The Qdrant test server drops the same ones.
   */
  public static final Set<String> STOP_WORDS = Set.of(
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

  private static final CharArraySet STOP_SET = CharArraySet.unmodifiableSet(new CharArraySet(STOP_WORDS, false));
  /** Qdrant keeps a token whole however long it is; CharTokenizer would cut at 255 by default. */
  private static final int MAX_RAW_TOKEN = 1024 * 1024;

  private static final Analyzer ANALYZER = new Analyzer() {
    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
      Tokenizer words = new CharTokenizer(TokenStream.DEFAULT_TOKEN_ATTRIBUTE_FACTORY, MAX_RAW_TOKEN) {
        @Override
        protected boolean isTokenChar(int c) {
          return alphanumeric(c);
        }
      };
      TokenStream stream = new LowerCaseFilter(words);
      stream = new StopFilter(stream, STOP_SET);
      stream = new SnowballFilter(stream, new EnglishStemmer());
      stream = new LengthFilter(stream, 1, MAX_TOKEN_CHARS);
      return new TokenStreamComponents(words, stream);
    }
  };

  private KeywordAnalysis() {}

  /** The analyzer of the embedded store's keyword field and of its BM25 queries (thread-safe). */
  public static Analyzer analyzer() {
    return ANALYZER;
  }

  /** The tokens of {@code text}, in order, as both engines index them. */
  public static List<String> tokens(String text) {
    List<String> out = new ArrayList<>();
    try (TokenStream stream = ANALYZER.tokenStream("", text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        out.add(term.toString());
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a String reader does not fail
    }
    return out;
  }

  /** The average length in tokens of the payloads' keyword texts; 0 when there are none. */
  public static double averageLength(List<JsonObject> payloads) {
    if (payloads.isEmpty()) {
      return 0;
    }
    long total = 0;
    for (JsonObject payload : payloads) {
      total += tokens(KeywordText.of(payload)).size();
    }
    return (double) total / payloads.size();
  }

  /**
   * The {@code qdrant/bm25} document options for a collection whose average keyword text is
   * {@code avgLen} tokens (Qdrant's Bm25Config: k, b, avg_len, language, stopwords, stemmer,
   * lowercase, ascii_folding, max_token_len). Queries carry the same, so they tokenize alike.
   */
  public static JsonObject qdrantOptions(double avgLen) {
    return new JsonObject()
        .put("k", K1)
        .put("b", B)
        .put("avg_len", avgLen)
        .put("language", LANGUAGE)
        .put("stopwords", LANGUAGE)
        .put("stemmer", new JsonObject().put("type", "snowball").put("language", LANGUAGE))
        .put("lowercase", true)
        .put("ascii_folding", false)
        .put("max_token_len", MAX_TOKEN_CHARS);
  }

  /** Rust's char::is_alphanumeric: alphabetic, or a number of any kind (Nd, Nl, No). */
  static boolean alphanumeric(int codePoint) {
    if (Character.isAlphabetic(codePoint)) {
      return true;
    }
    int type = Character.getType(codePoint);
    return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER
        || type == Character.OTHER_NUMBER;
  }
}
