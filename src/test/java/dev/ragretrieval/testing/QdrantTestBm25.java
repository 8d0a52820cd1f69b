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
import io.qdrant.client.grpc.JsonWithInt.Value;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.util.StringHelper;
import org.tartarus.snowball.ext.EnglishStemmer;

/**
 * Qdrant's server-side BM25 inference (model {@code qdrant/bm25}), as read in Qdrant 1.18.1's
 * source (src/common/inference/bm25.rs, api/src/rest/schema.rs Bm25Config, the full-text
 * tokenizers): the word tokenizer (split on every character that is not alphanumeric), then per
 * token ASCII folding (off by default), lowercase (on), stop words (the language's, English by
 * default: NLTK's list, lib/segment/.../stop_words/english.rs), the stemmer (the language's
 * Snowball, English by default), then the token length limits (none by default); a term's id is
 * murmur3_32 (seed 0) of its UTF-8 bytes read as i32, absolute value. A document's weight for a
 * term is {@code tf * (k + 1) / (tf + k * (1 - b + b * len / avg_len))} (defaults k 1.2, b 0.75,
 * avg_len 256, all from the Document's options); a query's is 1 per distinct term. IDF is not
 * here: the collection's IDF modifier applies it at query time ({@link QdrantTestStore}). Only
 * English and "none" are known here as languages; another is UNIMPLEMENTED, not guessed.
 */
public final class QdrantTestBm25 {

  /** Bm25Config: the options a Document may carry; unknown keys are ignored, as serde does. */
  public record Config(double k, double b, double avgLen, boolean lowercase, boolean asciiFolding,
      Set<String> stopWords, boolean stem, Integer minTokenLen, Integer maxTokenLen) {
    public static final Config DEFAULT = new Config(1.2, 0.75, 256, true, false, STOP_WORDS, true, null, null);

    /** Qdrant answers a bad option with "Invalid BM25 config: ..." (INVALID_ARGUMENT). */
    public static Config of(Map<String, Value> options) {
      String language = options.containsKey("language") ? string(options, "language") : "english";
      Set<String> stop = options.containsKey("stopwords") ? stopWords(options.get("stopwords")) : languageStops(language);
      boolean stem = options.containsKey("stemmer") ? stemmer(options.get("stemmer")) : languageStem(language);
      String tokenizer = options.containsKey("tokenizer") ? string(options, "tokenizer") : "word";
      if (!tokenizer.equals("word")) {
        throw new IllegalStateException("QdrantTestServer tokenizes BM25 with the word tokenizer only");
      }
      return new Config(number(options, "k", 1.2), number(options, "b", 0.75), number(options, "avg_len", 256),
          bool(options, "lowercase", true), bool(options, "ascii_folding", false), stop, stem,
          count(options, "min_token_len"), count(options, "max_token_len"));
    }

    private static double number(Map<String, Value> options, String key, double otherwise) {
      Value v = options.get(key);
      if (v == null) {
        return otherwise;
      }
      return switch (v.getKindCase()) {
        case DOUBLE_VALUE -> v.getDoubleValue();
        case INTEGER_VALUE -> v.getIntegerValue();
        default -> throw invalid("invalid type for " + key + ", expected f64");
      };
    }

    private static Integer count(Map<String, Value> options, String key) {
      Value v = options.get(key);
      if (v == null || v.getKindCase() == Value.KindCase.NULL_VALUE) {
        return null;
      }
      if (v.getKindCase() != Value.KindCase.INTEGER_VALUE || v.getIntegerValue() < 0) {
        throw invalid("invalid type for " + key + ", expected usize");
      }
      return (int) v.getIntegerValue();
    }

    private static boolean bool(Map<String, Value> options, String key, boolean otherwise) {
      Value v = options.get(key);
      if (v == null || v.getKindCase() == Value.KindCase.NULL_VALUE) {
        return otherwise;
      }
      if (v.getKindCase() != Value.KindCase.BOOL_VALUE) {
        throw invalid("invalid type for " + key + ", expected a boolean");
      }
      return v.getBoolValue();
    }

    private static String string(Map<String, Value> options, String key) {
      Value v = options.get(key);
      if (v.getKindCase() != Value.KindCase.STRING_VALUE) {
        throw invalid("invalid type for " + key + ", expected a string");
      }
      return v.getStringValue();
    }

    private static Set<String> languageStops(String language) {
      return switch (language) {
        case "english", "en" -> STOP_WORDS;
        case "none" -> Set.of();
        default -> throw new IllegalStateException("QdrantTestServer knows English stop words only, not " + language);
      };
    }

    private static boolean languageStem(String language) {
      return !language.equals("none") && languageStops(language) == STOP_WORDS;
    }

    /** StopwordsInterface: a language name, or {languages: [...], custom: [...]}. */
    private static Set<String> stopWords(Value v) {
      if (v.getKindCase() == Value.KindCase.STRING_VALUE) {
        if (v.getStringValue().equals("none")) {
          throw invalid("unknown variant `none` for stopwords");
        }
        return languageStops(v.getStringValue());
      }
      if (v.getKindCase() != Value.KindCase.STRUCT_VALUE) {
        throw invalid("stopwords: expected a language or a set");
      }
      Set<String> out = new LinkedHashSet<>();
      Map<String, Value> set = v.getStructValue().getFieldsMap();
      if (set.containsKey("languages")) {
        set.get("languages").getListValue().getValuesList().forEach(l -> out.addAll(languageStops(l.getStringValue())));
      }
      if (set.containsKey("custom")) {
        set.get("custom").getListValue().getValuesList().forEach(w -> out.add(w.getStringValue().toLowerCase(Locale.ROOT)));
      }
      return Set.copyOf(out);
    }

    /** StemmingAlgorithm: {type: "snowball", language: ...}. */
    private static boolean stemmer(Value v) {
      if (v.getKindCase() != Value.KindCase.STRUCT_VALUE) {
        throw invalid("stemmer: expected {type, language}");
      }
      Map<String, Value> fields = v.getStructValue().getFieldsMap();
      Value type = fields.get("type");
      Value language = fields.get("language");
      if (type == null || !type.getStringValue().equals("snowball") || language == null) {
        throw invalid("stemmer: expected {\"type\": \"snowball\", \"language\": ...}");
      }
      if (!List.of("english", "en").contains(language.getStringValue())) {
        throw new IllegalStateException("QdrantTestServer stems English only, not " + language.getStringValue());
      }
      return true;
    }

    private static IllegalArgumentException invalid(String message) {
      return new IllegalArgumentException("Invalid BM25 config: " + message);
    }
  }

  /** Qdrant's English stop words: the list the service keeps for its own analysis (checked against a real Qdrant in RealQdrantHybridTest). */
  static final Set<String> STOP_WORDS = dev.ragretrieval.search.KeywordAnalysis.STOP_WORDS;

  private QdrantTestBm25() {}

  /** Term id -> BM25 term-frequency weight of a document, with Qdrant's default options. */
  public static Map<Integer, Float> document(String text) {
    return document(text, Config.DEFAULT);
  }

  public static Map<Integer, Float> document(String text, Config config) {
    List<String> tokens = tokens(text, config);
    Map<String, Integer> counts = new LinkedHashMap<>();
    tokens.forEach(t -> counts.merge(t, 1, Integer::sum));
    Map<Integer, Float> out = new TreeMap<>();
    double norm = config.k() * (1 - config.b() + config.b() * tokens.size() / config.avgLen());
    counts.forEach((token, n) -> out.put(termId(token), (float) (n * (config.k() + 1) / (n + norm))));
    return out;
  }

  /** Term id -> 1 for each distinct term of a query. */
  public static Map<Integer, Float> query(String text) {
    return query(text, Config.DEFAULT);
  }

  public static Map<Integer, Float> query(String text, Config config) {
    Map<Integer, Float> out = new TreeMap<>();
    new LinkedHashSet<>(tokens(text, config)).forEach(t -> out.put(termId(t), 1f));
    return out;
  }

  public static List<String> tokens(String text) {
    return tokens(text, Config.DEFAULT);
  }

  public static List<String> tokens(String text, Config config) {
    List<String> out = new ArrayList<>();
    EnglishStemmer stemmer = new EnglishStemmer();
    int start = -1;
    for (int i = 0; i <= text.length(); ) {
      int cp = i < text.length() ? text.codePointAt(i) : ' ';
      boolean word = i < text.length() && alphanumeric(cp);
      if (word && start < 0) {
        start = i;
      } else if (!word && start >= 0) {
        String token = text.substring(start, i);
        start = -1;
        if (config.asciiFolding()) {
          token = fold(token);
        }
        if (config.lowercase()) {
          token = token.toLowerCase(Locale.ROOT);
        }
        if (!config.stopWords().contains(token)) {
          if (config.stem()) {
            stemmer.setCurrent(token);
            stemmer.stem();
            token = stemmer.getCurrent();
          }
          int length = token.codePointCount(0, token.length());
          if ((config.minTokenLen() == null || length >= config.minTokenLen())
              && (config.maxTokenLen() == null || length <= config.maxTokenLen())) {
            out.add(token);
          }
        }
      }
      i += Character.charCount(cp);
    }
    return out;
  }

  /** Rust's char::is_alphanumeric: alphabetic, or a number of any kind. */
  private static boolean alphanumeric(int cp) {
    int type = Character.getType(cp);
    return Character.isAlphabetic(cp) || type == Character.DECIMAL_DIGIT_NUMBER
        || type == Character.LETTER_NUMBER || type == Character.OTHER_NUMBER;
  }

  private static String fold(String token) {
    char[] in = token.toCharArray();
    char[] out = new char[in.length * 4];
    int n = ASCIIFoldingFilter.foldToASCII(in, 0, out, 0, in.length);
    return new String(out, 0, n);
  }

  public static int termId(String token) {
    byte[] bytes = token.getBytes(StandardCharsets.UTF_8);
    int hash = StringHelper.murmurhash3_x86_32(bytes, 0, bytes.length, 0);
    // i32::unsigned_abs: |MIN_VALUE| is 2^31, the same bits as MIN_VALUE read as uint32
    return hash == Integer.MIN_VALUE ? hash : Math.abs(hash);
  }
}
