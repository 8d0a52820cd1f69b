package dev.ragretrieval.retrieval;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The chunks of a cached answer, which also keep their JSON array (as {@link ResultJson#chunks}
 * writes it) once written: each answer that reuses them copies those bytes instead of escaping
 * the same texts again. The array holds nothing of a single answer (no query_id, no timings).
 */
final class EncodedChunks extends AbstractList<RetrievedChunk> implements RandomAccess {

  private final List<RetrievedChunk> chunks;
  /** Written on first use; two answers racing to write it write the same bytes. */
  private volatile SerializableString json;

  EncodedChunks(List<RetrievedChunk> chunks) {
    this.chunks = List.copyOf(chunks);
  }

  /** The JSON array of the chunks, UTF-8 once asked for. */
  SerializableString json() {
    SerializableString written = json;
    if (written == null) {
      String array = ResultJson.encode(generator -> ResultJson.chunks(generator, chunks)).toString(StandardCharsets.UTF_8);
      written = new SerializedString(array);
      written.asUnquotedUTF8();
      json = written;
    }
    return written;
  }

  @Override
  public RetrievedChunk get(int index) {
    return chunks.get(index);
  }

  @Override
  public int size() {
    return chunks.size();
  }
}
